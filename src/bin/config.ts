import { type Config, ConfigError, loadConfig } from '../config/env';
import { createLogger, type Logger, resolveLogFormat } from '../logging/logger';

/** Loads the configuration or exits with a message naming every bad variable. */
export function loadConfigOrExit(processName: string): { config: Config; logger: Logger } {
  try {
    const config = loadConfig();
    // JSON lines unless LOG_FORMAT=pretty: these processes run under supervisors that collect logs.
    const format = resolveLogFormat(config.logFormat, { prettyInTerminal: false });
    return {
      config,
      logger: createLogger(config.logLevel, `voice-platform-${processName}`, undefined, format),
    };
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
}
