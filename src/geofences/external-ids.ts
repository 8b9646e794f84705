/**
 * external_id → geofence id within an app (contract §4: unique within the app), for the embedded
 * store (store.ts): the `external` database ([app, external_id] → id), written with the record,
 * and the claims of writes decided but not yet committed. One process writes a data directory, so
 * the committed index plus the claims in flight are the whole truth: a create or update decided
 * while another write of the same external_id is in flight sees it taken.
 */
import type { Database } from 'lmdb';
import type { StoredGeofence } from '../schemas/geofence.js';
import { DwellError } from '../errors.js';

/** 409: the external_id names another live geofence of the app. */
export const taken = (xid: string) =>
  new DwellError('conflict', `external_id ${JSON.stringify(xid)} is already another geofence's in this app`, '/external_id');

const keyOf = (app: string, xid: string) => `${app}\u0000${xid}`;

export class ExternalIds {
  /** [app, external_id] → the id a write in flight gives it. */
  private readonly claims = new Map<string, string>();

  constructor(private readonly db: Database<string, [string, string]>,
    private readonly live: (app: string, id: string, now: number) => StoredGeofence | undefined) {}

  /** The live fence with this external_id, if any (committed). */
  find(app: string, xid: string, now: number): StoredGeofence | undefined {
    const id = this.db.get([app, xid]);
    const rec = id === undefined ? undefined : this.live(app, id, now);
    return rec?.external_id === xid ? rec : undefined;
  }

  /** The id a write in flight takes `xid` for, if any. */
  claimed(app: string, xid: string): string | undefined {
    return this.claims.get(keyOf(app, xid));
  }

  /** Takes `xid` for `id` until the write settles (call the answer with its promise); 409 when another fence holds it. */
  claim(app: string, xid: string | null | undefined, id: string, now: number): (written: Promise<unknown>) => void {
    if (xid === null || xid === undefined) return () => undefined;
    const owner = this.claimed(app, xid) ?? this.find(app, xid, now)?.id;
    if (owner !== undefined && owner !== id) throw taken(xid);
    const key = keyOf(app, xid);
    this.claims.set(key, id);
    const release = () => { if (this.claims.get(key) === id) this.claims.delete(key); };
    return (written) => { void written.then(release, release); };
  }

  /** Inside the record's write. */
  link(rec: StoredGeofence): void {
    if (rec.external_id) this.db.put([rec.app_key, rec.external_id], rec.id);
  }

  /** Inside the write that replaces or removes the record: only its own entry (a later fence may hold the external_id since this one expired). */
  unlink(rec: StoredGeofence): void {
    if (rec.external_id && this.db.get([rec.app_key, rec.external_id]) === rec.id) this.db.remove([rec.app_key, rec.external_id]);
  }
}
