/**
 * Structured JSON logs, one object a line on stderr. Secrets never reach here: callers log
 * app keys, never app secrets or credentials.
 */
type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };
let threshold: number = ORDER[(process.env.DWELL_LOG_LEVEL as Level) ?? 'info'] ?? ORDER.info;

export function setLogLevel(level: Level): void {
  threshold = ORDER[level];
}

function write(level: Level, msg: string, fields?: Record<string, unknown>, always = false): void {
  if (ORDER[level] < threshold && !always) return;
  const line = JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields });
  process.stderr.write(line + '\n');
}

export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write('debug', msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write('info', msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write('warn', msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write('error', msg, fields),
  /** Lines operators and scripts rely on (the port a server listens on), whatever the level. */
  notice: (msg: string, fields?: Record<string, unknown>) => write('info', msg, fields, true),
};
