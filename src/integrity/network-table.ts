/**
 * A request's networks by BSSID string → their index among its distinct networks (check.ts hear,
 * heard.ts): one open-addressing table held by the thread, reused by every request. A Map per
 * request cost some 60 k instructions a request on bench:http's bodies: V8 hashes every string
 * whole, the Map grows from 4 entries by rehashing, and every probe compares strings.
 *
 * Here a key's hash reads four characters (a BSSID's last two octets: the networks a phone hears
 * together often share a maker's first three), ASCII case folded, so that the spellings of one
 * network share a chain; a probe compares strings only when the full hashes agree. A new
 * generation forgets every key at once, with nothing written; `Heard.generation` tells detection
 * whether the table still holds its request's keys.
 */

/** Slots: a power of two. Keys are bounded to half of them, so probes stay short. */
const SIZE = 1024, MASK = SIZE - 1;
export const MAX_KEYS = SIZE >> 1;
/** What indexOf answers for a key the table does not hold. */
export const ABSENT = -2;

// The keys themselves in a new array each generation, in the order stored, young as the request's
// strings are: a slot holds its key's place there. Strings kept in an array held by the thread (old)
// were a write barrier and a remembered-set entry each, 8 k instructions a request on bench:http's
// bodies; an array of all the slots each request, 8 KB of garbage a request, more scavenges.
let keys: string[] = [];
const hashes = new Int32Array(SIZE), values = new Int32Array(SIZE), gens = new Int32Array(SIZE), places = new Int32Array(SIZE);
let generation = 0;

/** Forgets every key (a new request's table); the generation its keys will carry. */
export function newGeneration(): number {
  generation = (generation + 1) | 0;
  // After 2^32 requests a generation comes back: slots of its first use must not count as held.
  if (generation === 0) { gens.fill(0); generation = 1; }
  // An array literal of a string, not []: its elements are of the kind strings need from the
  // start, so a push is inlined (from [], each generation's first push changed the kind, and V8
  // called its push builtin for every key). keys[0] is no key.
  keys = [''];
  return generation;
}

/** The generation whose keys the table holds. */
export const currentGeneration = (): number => generation;

/**
 * FNV-1a over the last two octets' hex digits (of a BSSID; of any string, its characters at
 * those places), each with bit 0x20 set (A–F read as a–f: the ASCII spellings of a network share
 * a chain), then mixed so that the low bits spread. Four characters, not the whole string: a key
 * is hashed at every lookup (V8 keeps a string's own hash, but hashes all of it).
 */
export function hashOf(s: string): number {
  const n = s.length;
  let h = 0x811c9dc5 ^ n;
  if (n >= 5) {
    h = Math.imul(h ^ (s.charCodeAt(n - 1) | 0x20), 0x01000193);
    h = Math.imul(h ^ (s.charCodeAt(n - 2) | 0x20), 0x01000193);
    h = Math.imul(h ^ (s.charCodeAt(n - 4) | 0x20), 0x01000193);
    h = Math.imul(h ^ (s.charCodeAt(n - 5) | 0x20), 0x01000193);
  } else for (let k = 0; k < n; k++) h = Math.imul(h ^ (s.charCodeAt(k) | 0x20), 0x01000193);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return h ^ (h >>> 12);
}

/** The value stored for `s`, whose hashOf is `h`, in this generation, or ABSENT. */
export function indexOf(s: string, h = hashOf(s)): number {
  for (let at = h & MASK; gens[at] === generation; at = (at + 1) & MASK) {
    if (hashes[at] === h && keys[places[at]] === s) return values[at];
  }
  return ABSENT;
}

/**
 * Stores `value` for `s` (hashOf: `h`), which the table does not hold, unless that would leave
 * fewer than `spare` slots of MAX_KEYS free (indexOf then answers ABSENT for it): keys that must
 * be held keep room ahead of keys that only save a lookup.
 */
export function setIndex(s: string, h: number, value: number, spare = 0): void {
  if (keys.length - 1 + spare >= MAX_KEYS) return;
  let at = h & MASK;
  while (gens[at] === generation) at = (at + 1) & MASK;
  gens[at] = generation; hashes[at] = h; values[at] = value; places[at] = keys.length;
  keys.push(s);
}
