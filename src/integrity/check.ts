/**
 * Contract §12's checks on one request's signals, pure: the signals, the user's latest position
 * Dwell held before the request, the server's time and the app's learned network places in; the
 * flags of each signal and the user's latest position to keep out. What a visit or an event
 * carries is the union over the signals behind it (evidence.ts).
 */
import type { Signal } from '../schemas/detect-request.js';
import type { ApPlace } from '../learned/shapes.js';
import { stampMs } from '../time/stamp.js';
import { haversineM, M_PER_DEG } from '../geo/distance.js';
import { CLOCK_SKEW, INACCURATE, JUMPED, MOCKED, positionBits, WIFI_MISMATCH } from './flags.js';
import { mayAccuse, MISMATCH_M } from './networks.js';
import type { Heard } from './heard.js';
import { ABSENT, hashOf, indexOf, MAX_KEYS, newGeneration, setIndex } from './network-table.js';

export const JUMP_M = 10_000;
export const JUMP_SPEED_MS = 300;
export const INACCURATE_M = 1_000;
export const CLOCK_SKEW_MS = 300_000;
/** A network heard by a signal without a location is held against the nearest position this close in time. */
export const NEAR_MS = 15 * 60_000;
/**
 * Distinct networks looked up per request (the learned tables are read once for them all): joined
 * ones first. Every network a visit can teach must have been checked, or an uncaught spoof
 * teaches it at the false place (and it looks like a network that moves from then on): detection
 * hears at most 16 networks an event, 10 events a request, so 160; this bounds only abuse.
 */
export const MAX_NETWORKS = 256;
/** Of a scan, the strongest this many: as detection hears a scan (detect/evidence/wifi.ts wifiOf). */
export const SCAN_STRONGEST = 3;

/** The latest position Dwell holds for a user: lat, lon, accuracy (m, 0 when unknown), signal time (ms). */
export type LastPosition = [number, number, number, number];

export interface CheckInput {
  /** The request's signals, in request order (a structured request's events one after the other). */
  signals: readonly Signal[];
  /** Each signal's time (ms), when already parsed (detect/fixes.ts timesOf): kept as Checks.times. */
  times?: Float64Array;
  previous: LastPosition | undefined;
  /** Server time, ms. */
  now: number;
  /** The user's tag (networks.ts userTag), 0 without a user. */
  self: number;
  /** The app's learned places of these BSSIDs (lower case), in the order asked. */
  places: (bssids: readonly string[]) => ReadonlyArray<ApPlace | undefined>;
}

export interface Checks {
  /** The signals checked (CheckInput.signals). */
  signals: readonly Signal[];
  /** Per signal: its flags and whether it is a position, accurate or not (flags.ts positionBits). */
  bits: Uint8Array;
  /** Per signal: its time, ms. */
  times: Float64Array;
  /** The user's latest position by signal time, this request's included (undefined: none known). */
  last: LastPosition | undefined;
  /**
   * Per signal, SCAN_STRONGEST entries: the indexes in its scan of its strongest (-1 past them),
   * as detection hears a scan (wifiOf reads them rather than choosing again). Absent when the
   * checks heard no network (no position, or no Wi-Fi).
   */
  picks?: Int32Array;
  /** The networks heard and their learned places, for detection to reuse (heard.ts); absent as `picks` is. */
  heard?: Heard;
  /** What accused, kept only when something did (why.ts says it to the explorer): jumps and mismatches. */
  why?: Accusation[];
}

/** A jump between two positions (signal indexes, -1: the one held from before), or a network placed far from one. */
export type Accusation =
  | { flag: 'jumped'; a: number; b: number; from: LastPosition; to: LastPosition }
  | { flag: 'wifi_mismatch'; signal: number; position: number; bssid: string; place: ApPlace };

/** How far two positions are apart beyond what their accuracies allow, and whether that is a jump. */
export function isJump(a: LastPosition, b: LastPosition): boolean {
  const d = haversineM(a[0], a[1], b[0], b[1]) - a[2] - b[2];
  if (d <= JUMP_M) return false;
  const dt = Math.abs(b[3] - a[3]) / 1000;
  return dt === 0 || d / dt > JUMP_SPEED_MS;
}

export function checkSignals(input: CheckInput): Checks {
  const { signals, now } = input;
  const n = signals.length;
  const flags = new Uint8Array(n), parsed = input.times !== undefined && input.times.length === n;
  const times = parsed ? input.times! : new Float64Array(n);
  const located: number[] = [];
  let wifi = false, why: Accusation[] | undefined;
  // The newest position, taken in this pass from the location already in hand: reading it again
  // afterwards (signals[i].location at a site of its own) met shapes of signal its feedback had
  // not seen, a deoptimisation of checkSignals.
  let newestT = -Infinity, newestLat = 0, newestLon = 0, newestAcc = 0;
  for (let i = 0; i < n; i++) {
    const s = signals[i];
    const t = parsed ? times[i] : (times[i] = stampMs(s.timestamp));
    let f = t - now > CLOCK_SKEW_MS ? CLOCK_SKEW : 0;
    const loc = s.location;
    if (loc) {
      located.push(i);
      if (loc.mocked === true) f |= MOCKED;
      const acc = loc.accuracy ?? 0;
      if (acc > INACCURATE_M) f |= INACCURATE;
      // At equal times the later signal, as the stable sort below leaves last.
      if (t >= newestT) { newestT = t; newestLat = loc.lat; newestLon = loc.long; newestAcc = acc; }
    }
    if (s.active_wifi?.bssid || s.wifi_scan?.length) wifi = true;
    flags[i] = f;
  }
  // Positions in signal time, the one held from before included (index -1). SDKs send them in order: no sort then.
  let sorted = true;
  for (let k = 1; k < located.length && sorted; k++) sorted = times[located[k - 1]] <= times[located[k]];
  if (!sorted) located.sort((a, b) => times[a] - times[b]);
  const pos = (i: number): LastPosition => {
    const l = signals[i].location!;
    return [l.lat, l.long, l.accuracy ?? 0, times[i]];
  };
  // The held position's index among them (-1: none), before the first position later than it:
  // read in place, not spliced into a copy.
  const prev = input.previous;
  let at = -1;
  if (prev) { at = 0; while (at < located.length && times[located[at]] <= prev[3]) at++; }
  const m = located.length + (prev ? 1 : 0);
  for (let k = 1; k < m; k++) {
    const a = nth(located, at, k - 1), b = nth(located, at, k);
    // Most neighbours are metres apart: a degree test first (within 0.06° both ways is under 9.5 km), the exact test only when it could be a jump.
    // cos ≤ 1: longitudes under 0.06° apart pass without it (most do), the same answer.
    const la = a < 0 ? prev![0] : signals[a].location!.lat, lb = b < 0 ? prev![0] : signals[b].location!.lat;
    const oa = a < 0 ? prev![1] : signals[a].location!.long, ob = b < 0 ? prev![1] : signals[b].location!.long;
    const dLon = Math.abs(oa - ob);
    if (Math.abs(la - lb) < 0.06 && (dLon < 0.06 || dLon * Math.cos(la * (Math.PI / 180)) < 0.06)) continue;
    const from = a < 0 ? prev! : pos(a), to = b < 0 ? prev! : pos(b);
    if (isJump(from, to)) {
      if (a >= 0) flags[a] |= JUMPED;
      if (b >= 0) flags[b] |= JUMPED;
      (why ??= []).push({ flag: 'jumped', a, b, from, to });
    }
  }
  let picks: Int32Array | undefined, heard: Heard | undefined;
  if (wifi && located.length) {
    heard = { generation: newGeneration(), bssids: [], places: [], joined: new Int32Array(n).fill(-1), picked: new Int32Array(n * SCAN_STRONGEST).fill(-1) };
    why = mismatches(input, flags, times, located, why, (picks = new Int32Array(n * SCAN_STRONGEST).fill(-1)), heard);
  }
  const newest: LastPosition | undefined = located.length ? [newestLat, newestLon, newestAcc, newestT] : undefined;
  const last = !newest ? prev : !prev || newest[3] >= prev[3] ? newest : prev;
  for (let i = 0; i < n; i++) flags[i] = positionBits(flags[i], signals[i].location !== undefined);
  return why ? { signals, bits: flags, times, last, picks, heard, why } : { signals, bits: flags, times, last, picks, heard };
}

/** The k-th position in time order when the held one sits at `at` (-1: none held): its signal's index, -1 for the held one. */
function nth(located: readonly number[], at: number, k: number): number {
  return k === at ? -1 : located[at >= 0 && k > at ? k - 1 : k];
}

/** `wifi_mismatch`: a network the app's other users placed far from the position it was heard at. */
function mismatches(input: CheckInput, flags: Uint8Array, times: Float64Array, located: readonly number[], why: Accusation[] | undefined, picks: Int32Array, out: Heard): Accusation[] | undefined {
  const { signals } = input;
  // The request's networks, each once, lower case (as the learned tables key them: a BSSID a phone
  // writes in either case is one network), in hearing order, at most MAX_NETWORKS; and for each,
  // the signals that heard it.
  const { bssids, joined, picked } = out;
  nodes = 0;
  for (let i = 0; i < signals.length; i++) joined[i] = hear(bssids, signals[i].active_wifi?.bssid, i);
  for (let i = 0; i < signals.length; i++) {
    const scan = signals[i].wifi_scan;
    if (!scan) continue;
    const at = i * SCAN_STRONGEST, m = strongest(scan, picks, at);
    for (let j = 0; j < m; j++) picked[at + j] = hear(bssids, scan[picks[at + j]].bssid, i);
  }
  if (bssids.length === 0) return why;
  const places = (out.places = input.places(bssids));
  // No object lives across this loop (no {lat, lon}, no array iterator): the accusing path first
  // runs once some network is established, in optimized code without feedback for it, and a
  // deoptimisation that has objects to rebuild makes V8 finish the heap's sweeping there and then.
  for (let j = 0; j < bssids.length; j++) {
    const place = places[j];
    if (!mayAccuse(place, input.self)) continue;
    const atLat = place[1] / place[0], atLon = place[2] / place[0];
    for (let node = firstNode[j]; node >= 0; node = nodeNext[node]) {
      const i = nodeSig[node];
      const r = signals[i].location ? i : nearest(located, times, times[i]);
      if (r < 0) continue;
      const l = signals[r].location!;
      // A path along the meridian, then along the parallel at l.lat, is no shorter than the great
      // circle: a metre under MISMATCH_M that way (no rounding can matter), no haversine (most networks are heard where they were learned).
      if ((Math.abs(l.lat - atLat) + Math.abs(l.long - atLon) * Math.cos(l.lat * (Math.PI / 180))) * M_PER_DEG < MISMATCH_M - 1) continue;
      if (haversineM(l.lat, l.long, atLat, atLon) > MISMATCH_M) {
        flags[i] |= WIFI_MISMATCH; flags[r] |= WIFI_MISMATCH;
        (why ??= []).push({ flag: 'wifi_mismatch', signal: i, position: r, bssid: bssids[j], place: places[j]! });
      }
    }
  }
  return why;
}

/**
 * The signals that heard each network of the request (its index in `bssids`), in signal order, as
 * lists chained through typed arrays kept by the thread (`nodes` of them in use): an array per
 * network and its growth were an allocation or two each, for lists read only when the network may
 * accuse. `nodeSig` and `nodeNext` grow as a request needs.
 */
const firstNode = new Int32Array(MAX_NETWORKS), lastNode = new Int32Array(MAX_NETWORKS);
let nodeSig = new Int32Array(1024), nodeNext = new Int32Array(1024), nodes = 0;

/** Signal `i` at the end of network `j`'s list (`first`: it starts one). */
function listen(j: number, i: number, first: boolean): void {
  if (nodes === nodeSig.length) {
    const s = new Int32Array(2 * nodes), x = new Int32Array(2 * nodes);
    s.set(nodeSig); x.set(nodeNext); nodeSig = s; nodeNext = x;
  }
  const node = nodes++;
  nodeSig[node] = i; nodeNext[node] = -1;
  if (first) firstNode[j] = node; else nodeNext[lastNode[j]] = node;
  lastNode[j] = node;
}

/**
 * Network `raw` heard by signal `i`, into its lower case's list (listen); its index in `bssids`,
 * -1 for none or past MAX_NETWORKS. A visit hears the same few networks in every signal: the
 * thread's network table keys the string as sent too, so a BSSID heard before in the request
 * costs one lookup, no lower-cased copy. Lower-case keys are held for every network within
 * MAX_NETWORKS, and a spelling only while that leaves them room; past MAX_NETWORKS nothing is
 * kept (only abuse hears so many).
 */
function hear(bssids: string[], raw: string | undefined, i: number): number {
  if (!raw) return -1;
  const h = hashOf(raw);
  let j = indexOf(raw, h);
  if (j === ABSENT) {
    const b = raw.toLowerCase();
    // The hash folds ASCII case only: a lower case made otherwise (a Kelvin sign's k) hashes anew.
    const hb = b === raw ? h : hashOf(b);
    if (b !== raw) j = indexOf(b, hb);
    if (j === ABSENT) {
      if (bssids.length >= MAX_NETWORKS) return -1;
      j = bssids.length; bssids.push(b); listen(j, i, true);
      setIndex(b, hb, j);
      if (b !== raw) setIndex(raw, h, j, MAX_KEYS - MAX_NETWORKS);
      return j;
    }
    setIndex(raw, h, j, MAX_KEYS - MAX_NETWORKS);
  }
  // Heard again by the same signal (joined and among its scan's strongest): one hearing.
  if (nodeSig[lastNode[j]] !== i) listen(j, i, false);
  return j;
}

type Entry = { bssid?: string; strength?: number };
/**
 * A scan's strongest SCAN_STRONGEST (3) entries, strongest first and the earlier of equals first
 * (an insertion that moves an entry only above a weaker one), their indexes in the scan written at
 * `picks[at]` on; how many (the whole scan when it is no longer). The three are kept in locals and
 * each entry's strength is read once: with them in a module's Int32Array, read back at every
 * comparison, this cost some 120 instructions an entry (27 k a request on bench:http's bodies).
 */
function strongest(scan: ReadonlyArray<Entry>, picks: Int32Array, at: number): number {
  const n = scan.length;
  if (n <= SCAN_STRONGEST) {
    for (let j = 0; j < n; j++) picks[at + j] = j;
    return n;
  }
  let m = 0, a = -1, b = -1, c = -1, sa = 0, sb = 0, sc = 0;
  for (let i = 0; i < n; i++) {
    const st = scan[i].strength ?? -100;
    if (m === 0) { a = i; sa = st; m = 1; }
    else if (m === 1) {
      if (st > sa) { b = a; sb = sa; a = i; sa = st; } else { b = i; sb = st; }
      m = 2;
    } else if (m === 2 || st > sc) {
      if (st > sb) {
        c = b; sc = sb;
        if (st > sa) { b = a; sb = sa; a = i; sa = st; } else { b = i; sb = st; }
      } else { c = i; sc = st; }
      m = 3;
    }
  }
  picks[at] = a; picks[at + 1] = b; picks[at + 2] = c;
  return SCAN_STRONGEST;
}

/** The located signal nearest in time to `t` (within NEAR_MS), or -1; `located` is in time order. */
function nearest(located: readonly number[], times: Float64Array, t: number): number {
  let best = -1, gap = NEAR_MS;
  for (let k = 0; k < located.length; k++) {
    const i = located[k], d = Math.abs(times[i] - t);
    if (d <= gap) { best = i; gap = d; }
  }
  return best;
}
