/** What a detection is handed: the two stores, the address estimate, the app's settings, the time and the model's parameters. */
import type { AddressParts } from '../schemas/visit.js';
import type { UserStore } from '../users/store.js';
import type { VenueStore } from './venue.js';
import type { ModelParams } from './params.js';
import type { BeaconView } from '../schemas/beacon.js';
import type { Checks } from '../integrity/check.js';

export interface DetectContext {
  venues: VenueStore;
  users: UserStore;
  /** City, state and country of a point, as far as known (venues/address.ts). */
  estimateAddress: (lat: number, lon: number) => AddressParts;
  /** confirm_dwell_s: how long a stay must last to be a confirmed visit (default 300). */
  app: { app_key: string; confirm_dwell_s: number };
  /** Server time of receipt, ms since the epoch. */
  now: number;
  /** The model's parameters (params.ts): DEFAULT_PARAMS, or the accuracy harness's variant. */
  params: ModelParams;
  /** This app's registered beacons (beacons/lookup.ts), absent when it has none: never another app's. */
  beacons?: BeaconView;
  /** Told the integrity checks of the request's signals (integrity/check.ts), for the events the pipeline stamps. */
  onChecks?: (c: Checks) => void;
}
