import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs on stdout. Credentials and secret values are redacted wherever they
 * could appear, so a stray `logger.info({ body })` never leaks one.
 */
export function createLogger(
  level: string,
  name = 'voice-platform',
  destination?: DestinationStream,
): Logger {
  return pino(
    {
      name,
      level,
      base: { service: name },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          'authorization',
          'headers.authorization',
          'req.headers.authorization',
          '*.value',
          '*.secret',
          '*.fullKey',
          '*.token',
          '*.password',
          '*.clientSecret',
          'value',
          'secret',
          'fullKey',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
