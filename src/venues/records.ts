/**
 * The LMDB side of a store: one environment file, two named databases. `venues` holds records
 * keyed by their integer index (the id the spatial index returns), msgpack-encoded by lmdb's
 * default encoding; `ids` maps a venue id to its index.
 */
import { open, type Database, type RootDatabase } from 'lmdb';
import type { Venue } from './types.js';

export interface Records { env: RootDatabase; venues: Database<Venue, number>; ids: Database<number, string> }

export function openRecords(path: string, readOnly: boolean): Records {
  const env = open({ path, readOnly, compression: false });
  return {
    env,
    venues: env.openDB<Venue, number>('venues', { keyEncoding: 'uint32' }),
    ids: env.openDB<number, string>('ids', {}),
  };
}
