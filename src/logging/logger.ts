import pino, { type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

/** `json`: one JSON object a line (the default); `pretty`: readable lines for a terminal. */
export type LogFormat = 'json' | 'pretty';

/**
 * The format of a process's logs: `LOG_FORMAT` when set; otherwise readable lines when
 * `prettyInTerminal` and stdout is a terminal (`npm start`), else JSON lines.
 */
export function resolveLogFormat(
  configured: LogFormat | undefined,
  opts: { prettyInTerminal: boolean; isTTY?: boolean },
): LogFormat {
  if (configured) return configured;
  return opts.prettyInTerminal && (opts.isTTY ?? process.stdout.isTTY === true) ? 'pretty' : 'json';
}

/** Readable, colored lines (pino-pretty, in-process) on `destination` or stdout; redaction still applies. */
export function prettyStream(destination?: NodeJS.WritableStream): DestinationStream {
  return pretty({
    colorize: destination ? false : process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service',
    messageKey: 'msg',
    sync: true,
    ...(destination ? { destination } : {}),
  });
}

/**
 * Structured JSON logs on stdout (or `destination`). Credentials and secret values are redacted
 * wherever they could appear, so a stray `logger.info({ body })` never leaks one. With
 * `format: 'pretty'` the same records are written as readable lines.
 */
export function createLogger(
  level: string,
  name = 'voice-platform',
  destination?: DestinationStream,
  format: LogFormat = 'json',
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
          // provider keys (LLM_API_KEY, STT_API_KEY, TTS_API_KEY) wherever a config object is logged
          'apiKey',
          '*.apiKey',
          '*.*.apiKey',
          'value',
          'secret',
          'fullKey',
          // carrier credentials (a phone number's Twilio auth token, Telnyx API key)
          'credentials',
          '*.credentials',
          'authToken',
          '*.authToken',
          '*.*.authToken',
        ],
        censor: '[redacted]',
      },
    },
    format === 'pretty' ? prettyStream(destination as NodeJS.WritableStream | undefined) : destination,
  );
}
