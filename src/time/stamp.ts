/**
 * Timestamps as the wire carries them: an instant plus the zone offset the device used.
 *
 * A request carries some 36 of them, validation and detection both read each, and the regular
 * expression with Date.UTC cost 0.4 µs a stamp, Date.parse 0.2: together about 4 % of a worker's
 * time (bench/http-task). `scan` reads the usual shape by character codes; anything outside
 * plain ranges (a two-digit year, hour 24, an odd offset) goes to the slow path, so the answers
 * are Date.parse's in every case (test/detect-time checks both against it).
 */
const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2}):?(\d{2}))$/;

export interface Stamp { ms: number; offsetMin: number }

/** The value of n decimal digits at i, or -1. */
function digits(s: string, i: number, n: number): number {
  let v = 0;
  for (let k = 0; k < n; k++) {
    const c = s.charCodeAt(i + k) - 48;
    if (!(c >= 0 && c <= 9)) return -1;
    v = v * 10 + c;
  }
  return v;
}

/**
 * Days from 1970-01-01 to the `d`-th day of month `m` (1-based) of year `y` ≥ 0, a day past the
 * month's end running on into the next as Date.UTC does (H. Hinnant's days_from_civil, in the
 * proleptic Gregorian calendar). Date.UTC itself is a call into V8's runtime: it was a third of
 * `scan`'s instructions (bench:instructions).
 */
function daysFromCivil(y: number, m: number, d: number): number {
  if (m <= 2) y -= 1;
  const era = (y / 400) | 0, yoe = y - era * 400;
  const doy = (((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) | 0) + d - 1;
  return era * 146_097 + yoe * 365 + ((yoe / 4) | 0) - ((yoe / 100) | 0) + doy - 719_468;
}

const SLOW = -1e18;
/** The zone offset of the stamp `scan` last read, minutes east of UTC. */
let scannedOffset = 0;

/** Instant of a stamp in the common shape, in ms; SLOW when the slow path must decide. */
function scan(s: string): number {
  const n = s.length;
  if (n < 17 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(10) !== 84 || s.charCodeAt(13) !== 58) return SLOW;
  const Y = digits(s, 0, 4), M = digits(s, 5, 2), D = digits(s, 8, 2), h = digits(s, 11, 2), m = digits(s, 14, 2);
  if (Y < 100 || M < 1 || M > 12 || D < 1 || D > 31 || h < 0 || h > 23 || m < 0 || m > 59) return SLOW;
  let i = 16, sec = 0, ms = 0;
  if (s.charCodeAt(i) === 58) {
    sec = digits(s, i + 1, 2);
    if (sec < 0 || sec > 59) return SLOW;
    i += 3;
    if (s.charCodeAt(i) === 46) {
      let k = 0;
      for (i++; i < n && k < 10; i++, k++) {
        const c = s.charCodeAt(i) - 48;
        if (!(c >= 0 && c <= 9)) break;
        if (k < 3) ms = ms * 10 + c;
      }
      if (k === 0 || k > 9) return SLOW;
      for (; k < 3; k++) ms *= 10; // Date.parse keeps milliseconds and drops finer digits
    }
  }
  let off: number;
  const z = s.charCodeAt(i);
  if (z === 90 && i + 1 === n) off = 0;
  else if (z === 43 || z === 45) {
    const oh = digits(s, i + 1, 2);
    const j = s.charCodeAt(i + 3) === 58 ? i + 4 : i + 3;
    const om = digits(s, j, 2);
    if (j + 2 !== n || oh < 0 || oh > 23 || om < 0 || om > 59) return SLOW;
    off = (z === 45 ? -1 : 1) * (oh * 60 + om);
  } else return SLOW;
  scannedOffset = off;
  return (((daysFromCivil(Y, M, D) * 24 + h) * 60 + m - off) * 60 + sec) * 1000 + ms;
}

/** Milliseconds since the epoch, as Date.parse answers (NaN when it is no timestamp). */
export function stampMs(s: string): number {
  const t = scan(s);
  return t === SLOW ? Date.parse(s) : t;
}

/** Parses a validated ISO-8601 timestamp; the offset is kept so answers speak the device's zone. */
export function parseStamp(s: string): Stamp {
  const t = scan(s);
  if (t !== SLOW) return { ms: t, offsetMin: scannedOffset };
  const m = ISO.exec(s);
  const ms = Date.parse(s);
  if (!m) return { ms, offsetMin: 0 };
  return { ms, offsetMin: m[8] === 'Z' ? 0 : (m[9] === '-' ? -1 : 1) * (+m[10] * 60 + +m[11]) };
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** ISO-8601 in the given offset, seconds precision (milliseconds only when present). */
export function formatLocal(ms: number, offsetMin: number): string {
  const d = new Date(ms + offsetMin * 60_000);
  const frac = d.getUTCMilliseconds() ? `.${pad(d.getUTCMilliseconds(), 3)}` : '';
  const a = Math.abs(offsetMin);
  const zone = offsetMin === 0 ? 'Z' : `${offsetMin < 0 ? '-' : '+'}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${frac}${zone}`;
}

/** UTC, as the contract wants first/last visit times. */
export const formatUtc = (ms: number): string => formatLocal(ms, 0);

/** Local hour of the week, 0 = Monday 00:00 … 167 = Sunday 23:00. */
export function hourOfWeek(ms: number, offsetMin: number): number {
  const d = new Date(ms + offsetMin * 60_000);
  return ((d.getUTCDay() + 6) % 7) * 24 + d.getUTCHours();
}
