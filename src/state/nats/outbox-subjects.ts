/**
 * Names in JetStream for the trigger queue: two streams (pending triggers and dead ones) whose
 * subjects carry the app and a hash of the user, `dwell.outbox.<app>.<user hash>`. Erasing a
 * user or deleting an app then walks one subject filter, with no index to keep beside the
 * messages (outbox.ts: the dead ones purged by filter, the pending ones deleted one by one). The
 * user's identity key is hashed so that no user id appears in subjects (they show in server logs
 * and monitoring); anonymous triggers go under `_`.
 */
import { createHash } from 'node:crypto';
import { userOf } from '../../users/identity.js';

export const OUTBOX_STREAM = 'DWELL_OUTBOX';
export const DEAD_STREAM = 'DWELL_DEAD';
/** The one durable pull consumer every node's delivery worker shares. */
export const DELIVERY_CONSUMER = 'dwell-delivery';

/** Headers: what the trigger's state needs besides its body (the body is the trigger JSON, as sent). */
export const H = {
  id: 'Dwell-Trigger-Id',
  created: 'Dwell-Created-At',
  replayed: 'Dwell-Replayed-At',
  attempts: 'Dwell-Attempts',
  error: 'Dwell-Last-Error',
  deadAt: 'Dwell-Dead-At',
} as const;

/** App keys are `ak_<hex>`; anything else is hex-encoded behind `=` so it stays one subject token. */
export function appToken(app: string): string {
  return /^[A-Za-z0-9_-]+$/.test(app) ? app : '=' + Buffer.from(app).toString('hex');
}

export function appOfToken(token: string): string {
  return token.startsWith('=') ? Buffer.from(token.slice(1), 'hex').toString() : token;
}

export function userToken(user: string | null): string {
  return user === null ? '_' : createHash('sha256').update(user).digest('hex').slice(0, 32);
}

/** Who a trigger is about: the same key as their user record (users/identity.ts), null when anonymous. */
export function ownerOf(trigger: { data?: { user_info?: { user_id?: string | null; device_id?: string | null } } }): string | null {
  const u = trigger.data?.user_info;
  return u ? userOf({ advertising_id: u.device_id ?? undefined, user_id: u.user_id ?? undefined }) : null;
}

export type Kind = 'outbox' | 'dead';

export const subjectOf = (kind: Kind, app: string, user: string | null): string => `dwell.${kind}.${appToken(app)}.${userToken(user)}`;
export const appFilter = (kind: Kind, app: string): string => `dwell.${kind}.${appToken(app)}.*`;
export const userFilter = (kind: Kind, app: string, user: string): string => `dwell.${kind}.${appToken(app)}.${userToken(user)}`;

/** The app of a message's subject. */
export function appOfSubject(subject: string): string {
  return appOfToken(subject.split('.')[2] ?? '');
}
