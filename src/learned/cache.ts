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

/** FNV-1a's state after `kind \0 app \0` (the UTF-16 units; keys are short ASCII): what every key of one app starts with. */
function prefixOf(kind: string, app: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < kind.length; i++) h = Math.imul(h ^ kind.charCodeAt(i), 0x01000193);
  h = Math.imul(h, 0x01000193);
  for (let i = 0; i < app.length; i++) h = Math.imul(h ^ app.charCodeAt(i), 0x01000193);
  return Math.imul(h, 0x01000193);
}

/** The slot of `kind \0 app \0 name` by FNV-1a, from the state after its prefix (prefixOf), without building that string. */
function slotAfter(prefix: number, name: string): number {
  let h = prefix;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return 1 + ((h >>> 0) & MASK);
}

/** A cached value, the version of its slot it was read at, and that slot (slotAfter: a hit does not hash its name again). */
interface Entry<V> { value: V | undefined; version: number; slot: number }

/**
 * One kind of learned value (`kind` is its key prefix in LMDB), by app and name. Entries are kept
 * per app in maps keyed by the name as the request carries it: a key string built per lookup
 * (kind + app + name, some 60 lookups a request) was an allocation, a flatten and a hash each time.
 */
export class LearnedCache<V> {
  private readonly byApp = new Map<string, Map<string, Entry<V>>>();
  private size = 0;
  /** Where eviction is in which app's entries (evictOne). */
  private evicting: { app: string; entries: Map<string, Entry<V>>; keys: IterableIterator<string> } | null = null;
  /** The counter as read when this thread's read snapshot was last renewed. */
  private snapshot = 0;
  /**
   * The app whose keys' hash prefix is kept (prefixOf): a request asks for dozens of keys of one
   * app, and hashing the kind and app key again for each was half of every slot's hashing.
   */
  private prefixApp = '';
  private prefix = 0;
  /**
   * The last app looked up and its map of entries (undefined: it has none), kept with it: a
   * request asks for dozens of keys of one app. Reset whenever byApp gains or loses that app.
   */
  private lastApp: string | null = null;
  private lastEntries: Map<string, Entry<V>> | undefined;

  constructor(private readonly versions: Versions, private readonly maxEntries: number, readonly kind: string) {}

  /** Call before renewing the LMDB read snapshot (at the start of every task). */
  begin(): void {
    this.snapshot = Atomics.load(this.versions, 0);
  }

  /** The slot of one key, for `published`. */
  slot(app: string, name: string): number {
    if (app !== this.prefixApp) { this.prefix = prefixOf(this.kind, app); this.prefixApp = app; }
    return slotAfter(this.prefix, name);
  }

  /** The app's map of entries (undefined: none yet), the last app's kept. */
  private entriesOf(app: string): Map<string, Entry<V>> | undefined {
    if (app !== this.lastApp) { this.lastEntries = this.byApp.get(app); this.lastApp = app; }
    return this.lastEntries;
  }

  /**
   * The cached value of `name`, else `load(app, name)` (a read from the current snapshot), cached
   * when that is safe. A cached entry keeps its slot: a hit reads the slot's version without
   * hashing the name (the slot depends only on the kind, app and name). `load` takes the app and
   * name rather than closing over them: no closure made per lookup.
   */
  get(app: string, name: string, load: (app: string, name: string) => V | undefined): V | undefined {
    let entries = this.entriesOf(app);
    const e = entries?.get(name);
    const slot = e ? e.slot : this.slot(app, name);
    const version = Atomics.load(this.versions, slot);
    if (e && e.version === version) return e.value;
    const value = load(app, name);
    // A slot newer than the snapshot is a commit the snapshot may not hold: not cached.
    if (((version - this.snapshot) | 0) > 0) { if (e) { entries!.delete(name); this.size--; } return value; }
    if (e) { e.value = value; e.version = version; return value; }
    if (this.size >= this.maxEntries) {
      this.evictOne();
      entries = this.entriesOf(app); // the app's map goes once eviction emptied it
    }
    if (!entries) { this.byApp.set(app, (entries = new Map())); this.lastApp = null; }
    entries.set(name, { value, version, slot });
    this.size++;
    return value;
  }

  /** The cached value of `name` while it is current, else undefined; never reads LMDB. */
  peek(app: string, name: string): V | undefined {
    const e = this.entriesOf(app)?.get(name);
    return e && e.version === Atomics.load(this.versions, e.slot) ? e.value : undefined;
  }

  /**
   * The oldest entry of the first app that has one (one app in all, mostly): the bound, not an LRU.
   * One iterator walks the app's entries from eviction to eviction: a Map keeps a deleted entry's
   * place until it grows again, and a fresh iterator walks every such place first, so taking the
   * first key anew each time cost O(entries) once the cache was full and churning (25 us a miss at
   * 50,000 entries, against 0.5 before it filled; the scratch loop is in the commit message).
   */
  private evictOne(): void {
    for (;;) {
      let at = this.evicting;
      if (!at || this.byApp.get(at.app) !== at.entries) {
        const first = this.byApp.entries().next();
        if (first.done) { this.evicting = null; return; }
        const [app, entries] = first.value;
        at = this.evicting = { app, entries, keys: entries.keys() };
      }
      const next = at.keys.next();
      if (next.done) {
        // Walked to the end: what was added since is behind a new iterator; an empty app goes.
        this.evicting = null;
        if (at.entries.size === 0) { this.byApp.delete(at.app); this.lastApp = null; }
        continue;
      }
      at.entries.delete(next.value);
      this.size--;
      return;
    }
  }

  /** After the transaction that wrote the keys of `slots` has committed: their slots move on (every thread reloads them). */
  static published(versions: Versions, slots: readonly number[]): void {
    if (slots.length === 0) return;
    const at = (Atomics.add(versions, 0, 1) + 1) | 0;
    for (const s of slots) raise(versions, s, at);
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
