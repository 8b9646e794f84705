/**
 * What a log line may not hold, applied to every line's fields and message before it is written
 * (log.ts). Two kinds:
 * - secrets (app secrets, tokens, signatures, credentials), at every level: by field name, and in
 *   text as `Bearer …`, a URL's `user:password@`, and `secret=…`-like pairs;
 * - personal data (contract §7: coordinates, Wi-Fi names, addresses, user ids) at info and above:
 *   by field name, and in text any decimal with four or more places (a coordinate to ~10 m).
 *   At debug they are kept, for an operator reproducing one user's problem on purpose.
 * Callers should not pass either; this is the net under them.
 */
export const REDACTED = '[redacted]';

const SECRET_KEY = /secret|token|passw|authorization|signature|credential|private_?key|api_?key|cookie/i;
const PERSONAL_KEY = new Set([
  'lat', 'lon', 'lng', 'long', 'latitude', 'longitude', 'location', 'locations', 'coordinates', 'coords', 'fixes',
  'altitude', 'ssid', 'bssid', 'wifi', 'active_wifi', 'wifi_scan', 'address', 'formatted_address', 'street_address',
  'estimated_address', 'user_id', 'advertising_id', 'device_id', 'user', 'user_info', 'custom_data', 'email', 'ip',
]);

const SECRET_TEXT: Array<[RegExp, string]> = [
  [/\b(Bearer|Basic)\s+[^\s"',]+/gi, `$1 ${REDACTED}`],
  [/(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/@"']+@/gi, `$1${REDACTED}@`],
  [/(\b[\w-]*(?:secret|token|signature|passw|credential)[\w-]*"?\s*[=:]\s*"?)[^\s"&,;}]+/gi, `$1${REDACTED}`],
];
const COORDINATE_TEXT = /-?\b\d{1,3}\.\d{4,}/g;

const MAX_DEPTH = 8;

/** A copy of `fields` fit for a line at this level; `personal` false keeps personal data (debug). */
export function redactFields(fields: Record<string, unknown>, personal: boolean): Record<string, unknown> {
  return walk(fields, personal, 0) as Record<string, unknown>;
}

export function redactText(text: string, personal: boolean): string {
  let out = text;
  for (const [re, to] of SECRET_TEXT) out = out.replace(re, to);
  return personal ? out.replace(COORDINATE_TEXT, REDACTED) : out;
}

function walk(value: unknown, personal: boolean, depth: number): unknown {
  if (typeof value === 'string') return redactText(value, personal);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[nested]';
  if (value instanceof Error) return walk({ name: value.name, message: value.message, stack: value.stack }, personal, depth);
  if (Array.isArray(value)) return value.map((v) => walk(v, personal, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (SECRET_KEY.test(k) || (personal && PERSONAL_KEY.has(k.toLowerCase()))) out[k] = REDACTED;
    else out[k] = walk(v, personal, depth + 1);
  }
  return out;
}
