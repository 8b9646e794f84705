/**
 * Validation of a parsed detection body: the TypeBox schema first (its first error, with its
 * JSON Pointer), then the rules of contract §2 that a schema cannot express.
 */
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { DwellError, invalid } from '../errors.js';
import { stampMs } from '../time/stamp.js';
import { knowTimes } from '../time/signal-times.js';
import type { TSchema } from '@sinclair/typebox';
import { expectation, jsonObject, show as showValue } from './check.js';
import {
  LIMITS, StructuredRequest, UnstructuredRequest,
  type DetectRequest, type Signal,
} from './detect-request.js';
import { clock } from '../time/clock.js';

const structured = TypeCompiler.Compile(StructuredRequest);
const unstructured = TypeCompiler.Compile(UnstructuredRequest);

export type ValidRequest =
  | { kind: 'structured'; body: StructuredRequest }
  | { kind: 'unstructured'; body: UnstructuredRequest };

export function validateDetect(body: unknown, now = clock.now()): ValidRequest {
  const obj = jsonObject(body);
  const hasEvents = 'events' in obj, hasData = 'data' in obj;
  if (hasEvents === hasData) {
    throw invalid('', hasEvents
      ? 'a request has either "events" (structured) or "data" (unstructured), not both'
      : 'a request needs "events" (structured) or "data" (unstructured)');
  }
  const checker = hasEvents ? structured : unstructured;
  // Check is the compiled fast path; Errors walks the value again to explain, so only on failure.
  const first = checker.Check(body) ? undefined : checker.Errors(body).First();
  if (first) throw invalid(first.path, `${describe(first.path)}: ${explain(first.path, first)}, got ${show(first.value)}`);

  const req = body as DetectRequest;
  checkCommon(req, now);
  if ('events' in req) {
    const seen = new Set<string>();
    let total = 0;
    // Every signal's time, in request order, handed on to detection (time/signal-times.ts).
    let count = 0;
    for (const ev of req.events) count += ev.data.length;
    const signals: Signal[] = new Array(Math.min(count, LIMITS.signals + 1));
    const times = new Float64Array(signals.length);
    let k = 0;
    req.events.forEach((ev, i) => {
      const at = `/events/${i}`;
      checkId(ev.event_id, `${at}/event_id`);
      if (seen.has(ev.event_id)) throw invalid(`${at}/event_id`, `event_id "${ev.event_id}" appears twice in the request`);
      seen.add(ev.event_id);
      const start = parseTime(ev.start_time, `${at}/start_time`);
      const end = parseTime(ev.end_time, `${at}/end_time`);
      if (start > end) throw invalid(`${at}/end_time`, `end_time ${ev.end_time} is before start_time ${ev.start_time}`);
      total += ev.data.length;
      if (total > LIMITS.signals) throw invalid(`${at}/data`, `a request carries at most ${LIMITS.signals} signals`);
      ev.data.forEach((s, j) => {
        const t = checkSignal(s, `${at}/data/${j}`);
        if (t < start || t > end) {
          throw invalid(`${at}/data/${j}/timestamp`, `signal time ${s.timestamp} is outside its event (${ev.start_time} to ${ev.end_time})`);
        }
        signals[k] = s;
        times[k++] = t;
      });
    });
    knowTimes(signals, times);
    return { kind: 'structured', body: req };
  }
  const times = new Float64Array(req.data.length);
  req.data.forEach((s, j) => { times[j] = checkSignal(s, `/data/${j}`); });
  knowTimes(req.data, times);
  return { kind: 'unstructured', body: req };
}

function checkCommon(req: DetectRequest, now: number): void {
  for (const f of ['request_id', 'advertising_id', 'user_id'] as const) checkId(req[f], `/${f}`);
  if (req.yob !== undefined && req.yob > new Date(now).getUTCFullYear()) {
    throw invalid('/yob', `yob ${req.yob} is in the future`);
  }
  if (req.custom_data !== undefined) {
    let bytes: number;
    try {
      bytes = Buffer.byteLength(JSON.stringify(req.custom_data));
    } catch {
      // Only nesting deep enough to exhaust the stack makes stringify throw on parsed JSON.
      throw invalid('/custom_data', `custom_data is nested too deeply; it is at most ${LIMITS.customDataBytes} bytes as JSON`);
    }
    if (bytes > LIMITS.customDataBytes) {
      throw invalid('/custom_data', `custom_data is at most ${LIMITS.customDataBytes} bytes as JSON, got ${bytes}`);
    }
  }
}

/** At most LIMITS.idChars code points (the schema has already checked it is a string). */
function checkId(value: string | undefined, path: string): void {
  if (value === undefined || value.length <= LIMITS.idChars) return; // code points ≤ UTF-16 units
  const n = codePoints(value);
  if (n > LIMITS.idChars) {
    const name = path.slice(path.lastIndexOf('/') + 1);
    throw invalid(path, `${name} is at most ${LIMITS.idChars} characters (Unicode code points), got ${n}`);
  }
}

/** Unicode code points in `s`; a lone surrogate counts as one. */
function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++, n++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return n;
}

function checkSignal(s: Signal, at: string): number {
  if (!s.location && !s.active_wifi && !s.wifi_scan && !s.beacon_scan) {
    throw invalid(at, 'a signal carries at least one of location, active_wifi, wifi_scan, beacon_scan');
  }
  const speed = s.location?.speed;
  if (speed !== undefined && speed < 0 && speed !== -1) {
    throw invalid(`${at}/location/speed`, `speed is ≥ 0, or exactly -1 when unknown; got ${speed}`);
  }
  return parseTime(s.timestamp, `${at}/timestamp`);
}

/** Milliseconds since the epoch of an ISO-8601 timestamp the schema has already shaped. */
export function parseTime(value: string, path: string): number {
  const t = stampMs(value);
  if (!Number.isFinite(t)) throw invalid(path, `not a valid ISO-8601 timestamp: ${JSON.stringify(value)}`);
  return t;
}

/** TypeBox says "expected string to match '<regex>'"; a customer needs the rule in words. */
function explain(path: string, error: { schema: TSchema; message: string }): string {
  const message = error.message;
  if (/(timestamp|start_time|end_time)$/.test(path) && message.includes('match')) {
    return 'expected an ISO-8601 timestamp with a zone offset, like 2024-05-06T07:28:00+01:00';
  }
  if (path.endsWith('bssid') && message.includes('match')) return 'expected six hex pairs separated by colons';
  if (path.endsWith('uuid') && message.includes('match')) return 'expected a UUID of 36 characters, 8-4-4-4-12 hex digits';
  if (/_id$/.test(path) && message.includes('length greater')) return `expected 1 to ${LIMITS.idChars} characters`;
  return expectation(error);
}

function describe(path: string): string {
  return path === '' ? 'request' : path.slice(path.lastIndexOf('/') + 1);
}

/** As check.ts shows a value, but an array by its length (a detection's arrays are long). */
function show(value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return showValue(value);
}

export { DwellError };
