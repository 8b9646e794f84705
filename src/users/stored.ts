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
  /** Integrity evidence of its signals so far (integrity/flags.ts bits), absent when none. */ x?: number;
}

/** Where a user's signal stream stands between requests (detect/stream.ts). */
export interface StreamState {
  /** Latest fix time consumed, ms: older signals (a replayed upload) are skipped. */ lt: number;
  /** Latest usable fix time, ms, -1 when none. */ ut: number;
  c?: Cluster;
  /** A fix away from the open stay, held until the next fix says jump or departure. */
  p?: { t: number; lat: number; lon: number; acc: number; o: number };
}

/** What the user said of a visit (contract §10). */
export type FeedbackType = 'confirm' | 'wrong_venue' | 'not_a_stop';

export interface GivenFeedback { /** Type. */ k: FeedbackType; /** The true venue (wrong_venue). */ v?: string; /** When given, ms. */ at: number }

/** A visit answered with venues, kept for feedback on it (users/answered.ts, contract §10). */
export interface AnsweredVisit {
  /** Visit id. */ i: string;
  /** Start, ms. */ s: number;
  /** Centre (micro-degrees) and its per-axis error (m). */ la: number; lo: number; sg: number;
  /** Hour of week of the stay's middle, dwell (s), indoor share in percent (-1: unknown). */ h: number; d: number; o: number;
  /** The venue answered first (place_id): what `confirm` confirms. */ r: string;
  /** The venue the user's history credits the stay to: the ranking's first, then the feedback's; '' for none. */ v: string;
  /** Networks the phone joined there (BSSIDs), bounded. */ w?: string[];
  /** Beacons the app did not register, heard there: key, rssi − tx_power, …; bounded. */ b?: Array<string | number>;
  /** 1 when no fix of its own placed the stay (networks alone). */ x?: 1;
  /** The latest feedback on it. */ f?: GivenFeedback;
  /** 1 once its feedback taught the app's tables: a visit teaches them once. */ t?: 1;
  /** Integrity flags (integrity/flags.ts) once a later report of it did not pass: out of the history, no feedback. */ g?: number;
}
