/**
 * The detection core: requests in, visits out. Pure apart from the two stores it is handed;
 * the HTTP shell validates bodies, and workers open the stores once per thread.
 */
import type { AddressParts, SyncItem } from '../schemas/visit.js';
import type { StructuredRequest, UnstructuredRequest } from '../schemas/detect-request.js';
import type { UserStore } from '../users/store.js';
import type { VenueStore } from './venue.js';
import type { ModelParams } from './params.js';

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
}

export { detectStructured } from './structured.js';
export { detectUnstructured } from './unstructured.js';
export type { Venue, VenueStore } from './venue.js';
export { DEFAULT_PARAMS, withParams, type ModelParams } from './params.js';
export type { UserStore } from '../users/store.js';
export { openUserStore } from '../users/store.js';
