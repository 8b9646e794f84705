/**
 * Which heard networks could accuse anyone at all (contract §12 `wifi_mismatch`), answered
 * without reading the learned tables: a Bloom filter of the networks whose learned place names at
 * least MIN_OTHER_USERS witnesses (networks.ts), per app.
 *
 * Why: the checks look up every network a request hears (up to 256), and most of them (a
 * transit's scans above all) were never learned: each such lookup was a read of LMDB that found
 * nothing, most of what the checks cost (issue 43). A network the filter rules out has fewer than
 * MIN_OTHER_USERS witnesses, so accuserAt would refuse it: skipping it changes no answer.
 *
 * Why it stays exact: a place's witnesses are only ever added (withWitnesses keeps them, a place
 * is never rewritten with fewer), so "has enough witnesses" never turns false and the filter only
 * ever gains members: no false negative, false positives cost a lookup. Every write of a place
 * (learned/tables.ts learn, state/lmdb/learned.ts merge) notes it here inside its transaction,
 * before the commit, so a reader whose snapshot holds the place also finds it in the filter. The
 * filter lives in memory that lmdb-js shares among the threads of a process that opened the
 * environment (getUserSharedBuffer): the first to open it fills it from the stored places; until
 * that is done, every network is looked up (`ready`). The embedded engine is one process per data
 * directory (learned/cache.ts's version table is per process too). The cluster engine has none:
 * it looks up every network, as before.
 */
import type { RootDatabase } from 'lmdb';
import type { ApPlace } from '../learned/shapes.js';
import { MIN_OTHER_USERS } from './networks.js';

/** 2^23 bits (1 MiB): a million established networks give 2.7 % false positives, a hundred thousand 0.005 %. */
const BITS_LOG2 = 23;
const MASK = (1 << BITS_LOG2) - 1;
const PROBES = 3;
/** Word 0: the filter's state; the bits follow. */
const EMPTY = 0, FILLING = 1, READY = 2;
const WORDS = 1 + (1 << (BITS_LOG2 - 5));
const KEY = 'dwell:integrity:established';

/** Whether a learned place could ever accuse (it names enough witnesses): what the filter holds. */
export const hasWitnesses = (place: ApPlace | undefined): boolean => place !== undefined && place.length >= 8 + MIN_OTHER_USERS;

export class EstablishedNetworks {
  private app = '';
  private seed = 0;

  constructor(private readonly words: Int32Array) {
    if (words.length !== WORDS) throw new Error(`expected an established-networks filter of ${WORDS * 4} bytes, got ${words.byteLength}`);
  }

  /** Filled: `mayAccuse` may be trusted (until then every network is looked up). */
  get ready(): boolean {
    return Atomics.load(this.words, 0) === READY;
  }

  /** Notes a network (BSSID in either case) whose place has enough witnesses: call before its write commits. */
  add(app: string, bssid: string): void {
    const h = this.hash(app, bssid), step = mix(h), w = this.words;
    for (let i = 0; i < PROBES; i++) {
      const bit = (h + Math.imul(i, step)) & MASK, at = 1 + (bit >>> 5), b = 1 << (bit & 31);
      // Atomics.or (two threads setting bits of one word must not lose either), only for a bit not set yet: a settled network is written again and again.
      if ((w[at] & b) === 0) Atomics.or(w, at, b);
    }
  }

  /**
   * False when the network (BSSID in either case) certainly has too few witnesses to accuse
   * anyone; true when it may, or the filter is not filled yet. Plain reads: a bit a reader needs
   * was set before the commit its read snapshot holds (the snapshot's renewal, native code, comes
   * between), and a bit never goes back to 0.
   */
  mayAccuse(app: string, bssid: string): boolean {
    const w = this.words;
    if (w[0] !== READY) return true;
    const h = this.hash(app, bssid);
    if (h < 0) return true;
    const step = mix(h);
    for (let i = 0; i < PROBES; i++) { const bit = (h + Math.imul(i, step)) & MASK; if ((w[1 + (bit >>> 5)] & (1 << (bit & 31))) === 0) return false; }
    return true;
  }

  /**
   * FNV-1a of `app \0 bssid`, the BSSID's ASCII letters lower case (as toLowerCase keys the learned
   * tables: no lower-cased copy), as a non-negative 31-bit number; the app's part is kept between
   * calls. -1: the BSSID is not ASCII (a BSSID is six hex pairs, schemas/detect-request.ts), so
   * its lower case may differ from toLowerCase's.
   */
  private hash(app: string, bssid: string): number {
    if (app !== this.app) {
      let a = 0x811c9dc5;
      for (let i = 0; i < app.length; i++) a = Math.imul(a ^ app.charCodeAt(i), 0x01000193);
      this.app = app; this.seed = Math.imul(a, 0x01000193);
    }
    let a = this.seed;
    for (let i = 0; i < bssid.length; i++) {
      let c = bssid.charCodeAt(i);
      if (c > 127) return -1;
      if (c >= 65 && c <= 90) c += 32;
      a = Math.imul(a ^ c, 0x01000193);
    }
    return a >>> 1;
  }
}

/** The probes' stride, a remix of the hash: odd, so the three probes are three different bits. */
function mix(h: number): number {
  const x = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  return (x ^ (x >>> 12)) | 1;
}

const byEnv = new WeakMap<RootDatabase, EstablishedNetworks>();

/**
 * The filter of the environment `root` (the users environment: learned/tables.ts), shared with the
 * process's other threads that opened it; the first to ask fills it from the stored places.
 */
export function establishedNetworks(root: RootDatabase): EstablishedNetworks {
  let f = byEnv.get(root);
  if (f) return f;
  // envKey: one buffer for the environment, whichever of its databases asks.
  const shared = (root as unknown as { getUserSharedBuffer(id: string, dflt: ArrayBuffer, o: { envKey: boolean }): ArrayBuffer }).getUserSharedBuffer(KEY, new ArrayBuffer(WORDS * 4), { envKey: true });
  f = new EstablishedNetworks(new Int32Array(shared));
  byEnv.set(root, f);
  const words = new Int32Array(shared);
  if (Atomics.compareExchange(words, 0, EMPTY, FILLING) === EMPTY) {
    // Writers note what they write from now on (they always do); the places stored before are read here, from a snapshot taken after.
    root.resetReadTxn();
    for (const { key, value } of root.getRange({ start: ['apx'] as never, end: ['apx\u0000'] as never })) {
      const k = key as unknown as unknown[];
      if (k[0] === 'apx' && typeof k[1] === 'string' && typeof k[2] === 'string' && Array.isArray(value) && hasWitnesses(value as ApPlace)) f.add(k[1], k[2]);
    }
    Atomics.store(words, 0, READY);
  }
  return f;
}
