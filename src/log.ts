/**
 * Structured JSON logs on pino, one object a line on stderr:
 * `{"level":"info","time":"<ISO 8601>","pid":…,"hostname":…,"request_id"?:…,…fields,"msg":…}`.
 * Every line written while a request is handled carries its `request_id` (withRequestId, called
 * by the HTTP shell and the detection worker). Fields and message pass through log-redact.ts:
 * secrets never, personal data only at debug (contract §7).
 *
 * The destination is fd 2 written synchronously, in the main thread and in worker threads alike:
 * a worker's `process.stderr` is relayed through the main thread and may lose its last lines
 * when the thread or process ends; a direct write cannot. Pipes to stderr were synchronous before
 * too (Node writes them so on Linux), so this costs no more than the hand-written logger did.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { pino } from 'pino';
import { redactFields, redactText } from './log-redact.js';

type Level = 'debug' | 'info' | 'warn' | 'error';
type Fields = Record<string, unknown>;

const LEVELS: readonly Level[] = ['debug', 'info', 'warn', 'error'];
const initial = LEVELS.includes(process.env.DWELL_LOG_LEVEL as Level) ? (process.env.DWELL_LOG_LEVEL as Level) : 'info';

const requests = new AsyncLocalStorage<string>();

const destination = pino.destination({ dest: 2, sync: true });
const options: pino.LoggerOptions = {
  messageKey: 'msg',
  timestamp: pino.stdTimeFunctions.isoTime,
  formatters: { level: (label) => ({ level: label }) },
  mixin: () => {
    const id = requests.getStore();
    return id === undefined ? {} : { request_id: id };
  },
};
const logger = pino({ ...options, level: initial }, destination);

// Lines operators and scripts rely on (the port a server listens on) are written whatever the
// level: a logger of their own, since a child's level would follow setLogLevel down.
const always = pino({ ...options, level: 'info' }, destination);

export function setLogLevel(level: Level): void {
  logger.level = level;
}

/** Runs `fn` (and whatever it starts: callbacks, promises) with `id` on every log line. */
export function withRequestId<T>(id: string, fn: () => T): T {
  return requests.run(id, fn);
}

/** The request id of the code now running, if it runs for a request. */
export function currentRequestId(): string | undefined {
  return requests.getStore();
}

function write(to: pino.Logger, level: Level, msg: string, fields?: Fields): void {
  if (!to.isLevelEnabled(level)) return;
  const personal = level !== 'debug';
  to[level](fields ? redactFields(fields, personal) : {}, redactText(msg, personal));
}

export const log = {
  debug: (msg: string, fields?: Fields) => write(logger, 'debug', msg, fields),
  info: (msg: string, fields?: Fields) => write(logger, 'info', msg, fields),
  warn: (msg: string, fields?: Fields) => write(logger, 'warn', msg, fields),
  error: (msg: string, fields?: Fields) => write(logger, 'error', msg, fields),
  /** Lines operators and scripts rely on (the port a server listens on), whatever the level. */
  notice: (msg: string, fields?: Fields) => write(always, 'info', msg, fields),
  /** Whether a line at `level` would be written: skips building fields nobody reads. */
  enabled: (level: Level) => logger.isLevelEnabled(level),
};
