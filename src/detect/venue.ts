/**
 * The venue store as the detection core sees it: the stored record as it is, and only the
 * store's read side, so tests and the offline harness can pass a small in-memory store.
 */
import type { VenueStore as Store } from '../venues/store.js';

export type { Venue } from '../venues/types.js';
export type VenueStore = Pick<Store, 'id' | 'count' | 'counted' | 'near' | 'get' | 'close'>;
