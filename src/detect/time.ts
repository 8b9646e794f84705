/** Timestamps as the wire carries them: an instant plus the zone offset the device used. */
const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2}):?(\d{2}))$/;

export interface Stamp { ms: number; offsetMin: number }

/** Parses a validated ISO-8601 timestamp; the offset is kept so answers speak the device's zone. */
export function parseStamp(s: string): Stamp {
  const m = ISO.exec(s);
  if (!m) return { ms: Date.parse(s), offsetMin: 0 };
  const frac = m[7] ? Number(`0.${m[7]}`) * 1000 : 0;
  const local = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], m[6] ? +m[6] : 0) + Math.round(frac);
  const offsetMin = m[8] === 'Z' ? 0 : (m[9] === '-' ? -1 : 1) * (+m[10] * 60 + +m[11]);
  return { ms: local - offsetMin * 60_000, offsetMin };
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
