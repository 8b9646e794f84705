/**
 * Timestamps as the SDKs send them: ISO 8601 local time to the second (milliseconds only when
 * there are some) followed by the device's offset, "Z" or "±HH:MM".
 */

function offsetMinutes(offset: string): number {
  if (offset === 'Z') return 0;
  const m = /^([+-])(\d{2}):(\d{2})$/.exec(offset);
  if (!m) throw new Error(`an offset is "Z" or "±HH:MM", got ${JSON.stringify(offset)}`);
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

/** The instant `ms` as a device at `offset` writes it: sdkStamp(0, '+02:00') = "1970-01-01T02:00:00+02:00". */
export function sdkStamp(ms: number, offset = 'Z'): string {
  const local = new Date(ms + offsetMinutes(offset) * 60_000).toISOString();
  const millis = local.slice(19, 23) === '.000' ? '' : local.slice(19, 23);
  return local.slice(0, 19) + millis + offset;
}

/** `minutes` after a stamp, in the same offset: stampAfter("2024-05-06T07:00:00+02:00", 27) = "2024-05-06T07:27:00+02:00". */
export function stampAfter(start: string, minutes: number): string {
  const offset = /(Z|[+-]\d{2}:\d{2})$/.exec(start)?.[1];
  if (!offset) throw new Error(`a stamp ends with "Z" or "±HH:MM", got ${JSON.stringify(start)}`);
  return sdkStamp(Date.parse(start) + minutes * 60_000, offset);
}
