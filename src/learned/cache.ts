/**
 * A thread's cache of learned per-app values (access points' places, joined networks' pooled
 * evidence) that stays exact while several worker threads write them.
 *
 * Why: a 3-event request asks LMDB for some 30 access points, and decoding them cost about a
 * tenth of a worker's time (bench/http-task). Most answers do not change between requests: a
 * settled place is never rewritten, and most scanned networks are unknown.
 *
 * How it stays exact: the threads of one process share `Versions`, a SharedArrayBuffer with a
 * commit counter and a table of slots (keys hash to slots). A writer, after its LMDB transaction
 * has committed, takes the next counter value and raises the slots of the keys it wrote to it
 * (`published`). A thread starting a task reads the counter (`begin`) and then renews its LMDB
 * read snapshot, so the snapshot holds every write whose counter value is at most that reading.
 * A value read from LMDB is cached against its slot's value only when that slot is no newer than
 * the reading; a cached value is used while its slot is unchanged. A slot shared by two keys only
 * costs a reload. Counters are 32-bit and compared by wrapping difference: an entry older than
 * 2^31 commits just reloads.
 */

/** Slots in the table: 2^16 (256 KiB), so unrelated keys rarely share one. */
const SLOT_BITS = 16;
const MASK = (1 << SLOT_BITS) - 1;

/** What all threads of a process share: [0] the commit counter, [1 + slot] the slots. */
export type Versions = Int32Array;

export function newVersions(buffer = new SharedArrayBuffer(4 * (1 + (1 << SLOT_BITS)))): Versions {
  const v = new Int32Array(buffer);
  if (v.length !== 1 + (1 << SLOT_BITS)) throw new Error(`expected a version table of ${4 * (1 + (1 << SLOT_BITS))} bytes, got ${buffer.byteLength}`);
  return v;
}

/** FNV-1a over the key's UTF-16 units: keys are short ASCII strings. */
function slotOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return 1 + ((h >>> 0) & MASK);
}

interface Entry<V> { value: V | undefined; version: number }

export class LearnedCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  /** The counter as read when this thread's read snapshot was last renewed. */
  private snapshot = 0;

  constructor(private readonly versions: Versions, private readonly maxEntries: number) {}

  /** Call before renewing the LMDB read snapshot (at the start of every task). */
  begin(): void {
    this.snapshot = Atomics.load(this.versions, 0);
  }

  /** The cached value of `key`, else `load()` (a read from the current snapshot), cached when that is safe. */
  get(key: string, load: () => V | undefined): V | undefined {
    const slot = slotOf(key);
    const version = Atomics.load(this.versions, slot);
    const e = this.entries.get(key);
    if (e && e.version === version) return e.value;
    const value = load();
    // A slot newer than the snapshot is a commit the snapshot may not hold: not cached.
    if (((version - this.snapshot) | 0) > 0) { if (e) this.entries.delete(key); return value; }
    if (!e && this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, version });
    return value;
  }

  /** The cached value of `key` while it is current, else undefined; never reads LMDB. */
  peek(key: string): V | undefined {
    const e = this.entries.get(key);
    return e && e.version === Atomics.load(this.versions, slotOf(key)) ? e.value : undefined;
  }

  /** After the transaction that wrote `keys` has committed: their slots move on (every thread reloads them). */
  static published(versions: Versions, keys: readonly string[]): void {
    if (keys.length === 0) return;
    const at = (Atomics.add(versions, 0, 1) + 1) | 0;
    for (const k of keys) raise(versions, slotOf(k), at);
  }
}

/**
 * Slots only move forward: a writer that took its counter value earlier but stores it later
 * (preempted in between) must not set a slot back to a value a reader could mistake for one its
 * snapshot holds.
 */
function raise(versions: Versions, slot: number, at: number): void {
  for (;;) {
    const cur = Atomics.load(versions, slot);
    if (((at - cur) | 0) <= 0 || Atomics.compareExchange(versions, slot, cur, at) === cur) return;
  }
}
