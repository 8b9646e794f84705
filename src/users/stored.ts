/**
 * The shape of the open stay of a user's signal stream, stored in the user's record between
 * requests. Detection fills it in (detect/stream.ts, cluster.ts); it is
 * defined here, with the store, so that the store never imports detection. Short keys keep
 * every stored record small; renaming one would orphan what is on disk.
 */

import type { BeaconsHeard } from '../schemas/beacon.js';

/** A network heard during a stay. */
export interface WifiHeard { key: string; ssid: string; bssid: string; strength: number; active: boolean }

/** A stay in the making: the fixes and networks of one place (detect/cluster.ts). */
export interface Cluster {
  /** Visit id once reported, else ''. */ id: string;
  /** Offset (minutes) of the device's clock zone. */ o: number;
  /** Time of the last usable fix before this stay, -1 when none. */ pt: number;
  /** First and last fix times, ms. */ f0: number; l: number;
  /** Fixes taken, including those thinned out of the stored columns. */ n: number;
  /** Running weighted sums for the centre used to test membership. */ sw: number; sla: number; slo: number;
  /** Stored fixes (bounded): time, lat, lon, accuracy. */ ft: number[]; fla: number[]; flo: number[]; fa: number[];
  /** Networks heard during the stay (bounded). */ w: WifiHeard[];
  /** Beacons heard during the stay (bounded; detect/evidence/beacons.ts), absent when none ranged. */ b?: BeaconsHeard;
}

/** Where a user's signal stream stands between requests (detect/stream.ts). */
export interface StreamState {
  /** Latest fix time consumed, ms: older signals (a replayed upload) are skipped. */ lt: number;
  /** Latest usable fix time, ms, -1 when none. */ ut: number;
  c?: Cluster;
  /** A fix away from the open stay, held until the next fix says jump or departure. */
  p?: { t: number; lat: number; lon: number; acc: number; o: number };
}
