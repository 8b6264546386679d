/**
 * One winston logger for the process. JSON lines when stderr is not a TTY (CI, containers), a compact
 * human format when it is. Level from REGENT_LOG_LEVEL (default `info`). Logs go to stderr so that
 * stdout stays clean for command output (`--json`).
 *
 * Never log tokens, passwords or application-credential secrets: pass errors through
 * `describeError`, which keeps type, message and request ids only.
 */
import winston from 'winston';

export type Logger = winston.Logger;

const LEVELS = ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'];

export const logLevelFromEnv = (env: NodeJS.ProcessEnv = process.env): string => {
  const level = (env.REGENT_LOG_LEVEL ?? 'info').toLowerCase();
  return LEVELS.includes(level) ? level : 'info';
};

export const createLogger = (options: { level?: string; json?: boolean; silent?: boolean } = {}): Logger => {
  const json = options.json ?? !process.stderr.isTTY;
  const format = json
    ? winston.format.combine(winston.format.timestamp(), winston.format.json())
    : winston.format.combine(
        winston.format.timestamp({ format: 'HH:mm:ss.SSS' }),
        winston.format.printf(({ timestamp, level, message, ...rest }) => {
          const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
          return `${String(timestamp)} ${level} ${String(message)}${extra}`;
        }),
      );
  return winston.createLogger({
    level: options.level ?? logLevelFromEnv(),
    silent: options.silent ?? false,
    format,
    transports: [new winston.transports.Console({ stderrLevels: LEVELS })],
  });
};

/** A logger that drops everything: for tests and library defaults. */
export const silentLogger = (): Logger => createLogger({ silent: true });

/** A log-safe description of an error: name, message, and typed fields that are known to be safe. */
export const describeError = (error: unknown): Record<string, unknown> => {
  if (error instanceof Error) {
    const safe: Record<string, unknown> = { errorName: error.name, errorMessage: error.message };
    for (const key of ['code', 'status', 'method', 'path', 'requestId', 'reason']) {
      const value = (error as unknown as Record<string, unknown>)[key];
      if (value !== undefined) safe[key] = value;
    }
    return safe;
  }
  return { errorMessage: String(error) };
};
