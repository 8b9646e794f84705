/**
 * The detection core: requests in, visits out. Pure apart from the two stores it is handed;
 * the HTTP shell validates bodies, and workers open the stores once per thread.
 */
export type { DetectContext } from './context.js';
export { detectStructured } from './structured.js';
export { detectUnstructured } from './unstructured.js';
export type { Venue, VenueStore } from './venue.js';
export { DEFAULT_PARAMS, withParams, type ModelParams } from './params.js';
export type { UserStore } from '../users/store.js';
export { openUserStore } from '../users/store.js';
