/**
 * The privacy tests' stores: a temporary data directory opened as the server opens it (users'
 * time index, geofence presence, the outbox, a year's retention slots), plus a detection worker's
 * user store to write records through. Everything is closed and removed after `run`.
 */
import fs from 'node:fs';
import { openUserStore } from '../../src/users/store.js';
import { Outbox } from '../../src/delivery/outbox.js';
import { GeofenceStore } from '../../src/geofences/store.js';
import { openPrivacyStores, type PrivacyStores } from '../../src/privacy/stores.js';
import { DAY_MS, slotFor } from '../../src/users/touch.js';
import { tempDir } from './server.js';

export const YEAR_MS = 365 * DAY_MS;

export interface PrivacyFixture {
  s: PrivacyStores;
  users: ReturnType<typeof openUserStore>;
  dataDir: string;
}

export async function withPrivacyStores(run: (f: PrivacyFixture) => Promise<void>): Promise<void> {
  const dataDir = tempDir();
  const geofences = new GeofenceStore(dataDir), outbox = new Outbox(dataDir);
  const s = openPrivacyStores(dataDir, geofences, outbox, slotFor(YEAR_MS));
  const users = openUserStore(dataDir);
  try {
    await run({ s, users, dataDir });
  } finally {
    users.close();
    await s.users.close();
    await outbox.close();
    await geofences.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `n` users of app `app` (`u0`…), written as a detection worker writes them. */
export function addUsers(f: PrivacyFixture, n: number): void {
  for (let i = 0; i < n; i++) f.users.update('app', `u${i}`, (rec) => ({ record: rec, result: undefined }));
}

/** How many users of app `app` the store holds. */
export const usersLeft = (s: PrivacyStores) => [...s.users.getKeys({ start: ['u', 'app'], end: ['u', 'app', '\uffff'] })].length;
