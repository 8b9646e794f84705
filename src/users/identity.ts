/**
 * Who a detection request is about (contract §2): the user is `advertising_id` when present and
 * not empty, else `user_id`; null when neither. Visits, stream stays and geofence presence all
 * ask here, so one device never splits into two users (or many into one) between them.
 */
export interface Identified { advertising_id?: string; user_id?: string }

export function userOf(b: Identified): string | null {
  if (b.advertising_id) return b.advertising_id;
  return b.user_id ? b.user_id : null;
}

/** The postback's `device_id` (contract §3): the advertising id as sent, null when absent or empty. */
export const deviceIdOf = (b: Identified): string | null => b.advertising_id || null;
