/** A geofence as customers read it (contract §4): the GET's record, and a near page's items. */
import type { GeofenceRecord, StoredGeofence } from '../schemas/geofence.js';

/** The record without its app key, fields in contract order. */
export function publicGeofence(r: StoredGeofence): GeofenceRecord {
  return {
    id: r.id, tag: r.tag, location: r.location, ttl: r.ttl, push_text: r.push_text,
    dwell: r.dwell ?? 0, metadata: r.metadata ?? null, external_id: r.external_id ?? null,
    created_at: r.created_at, updated_at: r.updated_at, expires_at: r.expires_at,
  };
}

/**
 * The public record as JSON without its closing brace: a near item is this, `,"distance":<m>` and
 * `}`, byte for byte what JSON.stringify makes of `{ ...publicGeofence(r), distance }`.
 */
export function openJson(r: StoredGeofence): string {
  const json = JSON.stringify(publicGeofence(r));
  return json.slice(0, -1);
}
