/**
 * Keys of user records in the users environment. A record is scoped by app: the same
 * advertising id in two apps is two unrelated users (contract §7). Ids are at most 256 code
 * points (contract §2), at most 1,024 bytes of UTF-8, so with a generated app key (27 bytes) a
 * key stays well under LMDB's 1,978-byte limit.
 */
export type UserKey = ['u', string, string];

export const userKey = (app: string, user: string): UserKey => ['u', app, user];

/** Written by versions before records were scoped: ['u', user], with no app. */
export const isUnscopedUserKey = (key: unknown): boolean =>
  Array.isArray(key) && key.length === 2 && key[0] === 'u';

/** Present once the store holds only scoped records (see drop-unscoped.ts). */
export const SCOPED_MARKER = ['meta', 'user-keys-scoped'];
