/**
 * The LMDB side of a store: one environment file, two named databases. `venues` holds records
 * keyed by their integer index (the id the spatial index returns), msgpack-encoded by lmdb's
 * default encoding with shared structures: field names are stored once, not in every record,
 * which halves record size and decode time (153 vs 288 bytes, 1.4 vs 3.2 µs a get on NYC).
 * `ids` maps a venue id to its index.
 */
import { open, type Database, type RootDatabase } from 'lmdb';
import type { Venue } from './types.js';

export interface Records { env: RootDatabase; venues: Database<Venue, number>; ids: Database<number, string> }

export function openRecords(path: string, readOnly: boolean): Records {
  const env = open({ path, readOnly, compression: false });
  return {
    env,
    // Default (ordered-binary) keys: the shared-structures entry lives under a Symbol key.
    venues: env.openDB<Venue, number>('venues', { sharedStructuresKey: Symbol.for('structures') }),
    ids: env.openDB<number, string>('ids', {}),
  };
}
