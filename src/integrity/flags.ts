/**
 * Contract §12's flags as bits, so a signal's, a stay's or an event's checks are one small
 * number (a stream stay keeps its own in the user's record between requests), and as the
 * `integrity` object visits and events carry.
 */
import { INTEGRITY_FLAGS, type Integrity, type IntegrityFlag } from '../schemas/visit.js';

export const JUMPED = 1;
/** On a position: its accuracy is worse than INACCURATE_M. On a visit: every position behind it is. */
export const INACCURATE = 2;
export const CLOCK_SKEW = 4;
export const WIFI_MISMATCH = 8;
export const MOCKED = 16;
/** Not flags: a position is behind it, and one of them is accurate (what `inaccurate` needs). */
export const HAS_POSITION = 32;
export const HAS_ACCURATE = 64;

/** The flag bits in INTEGRITY_FLAGS's order. */
const BITS: Record<IntegrityFlag, number> = { jumped: JUMPED, inaccurate: INACCURATE, clock_skew: CLOCK_SKEW, wifi_mismatch: WIFI_MISMATCH, mocked: MOCKED };
const FLAG_MASK = JUMPED | CLOCK_SKEW | WIFI_MISMATCH | MOCKED;

/** The bits of one position as evidence (what `merge` adds up): its own flags, and whether it is accurate. */
export function positionBits(flags: number, located: boolean): number {
  if (!located) return flags & FLAG_MASK;
  return (flags & FLAG_MASK) | HAS_POSITION | (flags & INACCURATE ? 0 : HAS_ACCURATE);
}

/** The flags of a visit or event whose evidence (positionBits, OR-ed) is `bits`. */
export function flagsOf(bits: number): number {
  const inaccurate = bits & HAS_POSITION && !(bits & HAS_ACCURATE) ? INACCURATE : 0;
  return (bits & FLAG_MASK) | inaccurate;
}

const PASSED: Integrity = Object.freeze({ passed: true, flags: [] }) as unknown as Integrity;

/** The `integrity` object of contract §12 for flags (flagsOf). */
export function integrityOf(flags: number): Integrity {
  if (flags === 0) return { passed: true, flags: [] };
  const out: IntegrityFlag[] = [];
  for (const f of INTEGRITY_FLAGS) if (flags & BITS[f]) out.push(f);
  return { passed: false, flags: out };
}

/** For counting: the names of the flags set. */
export const flagNames = (flags: number): IntegrityFlag[] => (flags ? integrityOf(flags).flags : PASSED.flags);

/** Whether an answered visit or event passed (absent integrity: it was never checked, as before §12). */
export const passed = (x: { integrity?: Integrity }): boolean => x.integrity?.passed !== false;
