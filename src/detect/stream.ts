/**
 * Stay detection in a user's signal stream. A stay opens at a fix that is not moving and grows
 * while fixes agree with its centre. It ends on clear departure: a fast fix away from it, two
 * consecutive fixes away (a single one is usually a multipath jump), or any fix away after a gap.
 * Coarse network fixes neither open nor end stays. Pure: state in, state and reports out.
 */
import type { Signal } from '../schemas/detect-request.js';
import type { Fixes } from './fixes.js';
import { wifiOf } from './evidence/wifi.js';
import { beaconsOf } from './evidence/beacons.js';
import { parseStamp } from '../time/stamp.js';
import { M_PER_DEG, mPerDegLon } from '../geo/distance.js';
import type { SilenceParams } from './params.js';
import { addFix, addHeard, distanceTo, endOf, newCluster, spacing, startOf, type Cluster } from './cluster.js';
import type { StreamState } from '../users/stored.js';

/** Stored in the user's record between requests, so defined with it (users/stored.ts). */
export type { StreamState } from '../users/stored.js';

export interface StayReport { cluster: Cluster; startMs: number; endMs: number | null }

/** Fixes this coarse say only which neighbourhood the phone is in. */
const COARSE_M = 150;
/** Speeds above this are walking or faster. */
const MOVING_MS = 1.0;
const FAST_MS = 2.0;
/** A silence this long before a fix away from the stay means the person left during it. */
const GAP_MS = 20 * 60_000;

const awayRadius = (acc: number) => 50 + 1.5 * acc;

/**
 * A stop shorter than this, arrival to departure, is a pause on the way (a red light, a crossing,
 * a look at a map), not a stay: it is never reported. Longer ones that end before the
 * confirmation dwell are reported unconfirmed. Arrival and departure lie half a fix interval
 * outside the stop's first and last fix, so a red light held over two fixes a minute apart
 * measures about 2 minutes, and a stop seen over three minutes of fixes about 4.
 */
export const MIN_STAY_MS = 3 * 60_000;

/** A silence this long ends a stay even when the next fix is back at the same place (params.ts `silence`). */
const silenceLimit = (c: Cluster, s: SilenceParams): number => Math.max(s.minMs, s.spacings * spacing(c));

export function initialState(): StreamState { return { lt: -Infinity, ut: -1 }; }

/**
 * Consumes one request's fixes. Returns the stays that ended (any length) and the state to keep;
 * the caller decides which stays are visits (long enough) and reports them.
 */
export function advance(state: StreamState, f: Fixes, signals: readonly Signal[], silence: SilenceParams): { state: StreamState; ended: StayReport[] } {
  const ended: StayReport[] = [];
  const close = (nextT: number) => {
    const c = state.c!;
    ended.push({ cluster: c, startMs: startOf(c), endMs: endOf(c, nextT) });
    state.c = undefined;
  };
  const open = (t: number, lat: number, lon: number, acc: number, o: number, prevT: number, sig?: Signal) => {
    state.c = newCluster(t, lat, lon, acc, prevT, o);
    if (sig && (sig.active_wifi || sig.wifi_scan)) addHeard(state.c, wifiOf([sig]));
    if (sig?.beacon_scan) state.c.b = beaconsOf([sig], state.c.b);
  };
  for (let i = 0; i < f.n; i++) {
    const t = f.t[i];
    if (t <= state.lt) continue;
    state.lt = t;
    const acc = f.acc[i], lat = f.lat[i], lon = f.lon[i], speed = f.speed[i];
    if (acc > COARSE_M) continue;
    const sig = signals[f.src[i]];
    const moving = speed >= MOVING_MS;
    const prevT = state.ut;
    state.ut = t;
    const c = state.c;
    if (!c) {
      if (!moving) open(t, lat, lon, acc, parseStamp(sig.timestamp).offsetMin, prevT, sig);
      continue;
    }
    if (t - c.l > silenceLimit(c, silence)) {
      close(state.p ? state.p.t : t);
      state.p = undefined;
      if (!moving) open(t, lat, lon, acc, parseStamp(sig.timestamp).offsetMin, prevT, sig);
      continue;
    }
    const d = distanceTo(c, lat, lon);
    const away = d > awayRadius(acc);
    if (speed >= FAST_MS || (moving && (away || d > 30)) || (away && t - c.l > GAP_MS)) {
      close(state.p ? state.p.t : t);
      state.p = undefined;
      if (!moving) open(t, lat, lon, acc, parseStamp(sig.timestamp).offsetMin, prevT, sig);
      continue;
    }
    if (away) {
      const p = state.p;
      if (!p) { state.p = { t, lat, lon, acc, o: parseStamp(sig.timestamp).offsetMin }; continue; }
      // Two fixes in a row away from the stay: the person has left.
      close(p.t);
      state.p = undefined;
      const together = Math.hypot((lat - p.lat) * M_PER_DEG, (lon - p.lon) * mPerDegLon(lat)) <= awayRadius(Math.max(acc, p.acc));
      if (together) { open(p.t, p.lat, p.lon, p.acc, p.o, c.l); addFix(state.c!, t, lat, lon, acc); }
      else open(t, lat, lon, acc, parseStamp(sig.timestamp).offsetMin, p.t, sig);
      continue;
    }
    // Back near the stay: a held fix away was a jump, forget it.
    state.p = undefined;
    addFix(c, t, lat, lon, acc);
    if (sig.active_wifi || sig.wifi_scan) addHeard(c, wifiOf([sig]));
    if (sig.beacon_scan) c.b = beaconsOf([sig], c.b);
  }
  return { state, ended };
}

/** The open stay as it stands now, for an interim report once it has lasted long enough. */
export function openStay(state: StreamState): StayReport | null {
  return state.c ? { cluster: state.c, startMs: startOf(state.c), endMs: null } : null;
}
