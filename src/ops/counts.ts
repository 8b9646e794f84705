/**
 * What a backup holds, per kind, counted in the copy itself (read-only), so the manifest says
 * what restore will bring back rather than what the live node held a moment later.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import type { Counts } from './manifest.js';

const LEARNED = new Set(['apx', 'pv', 'bl', 'kp', 'ks']);

export function countStores(dir: string): Counts {
  const counts: Counts = { apps: 0, users: 0, learned: 0, geofences: 0, beacons: 0, triggers_pending: 0, triggers_dead: 0 };
  withEnv(path.join(dir, 'apps.mdb'), {}, (root) => { counts.apps = entries(root, 'apps'); });
  withEnv(path.join(dir, 'geofences.mdb'), {}, (root) => { counts.geofences = entries(root, 'fences'); });
  withEnv(path.join(dir, 'beacons.mdb'), {}, (root) => { counts.beacons = entries(root, 'beacons'); });
  withEnv(path.join(dir, 'users'), { useRecords: false }, (root) => {
    for (const key of root.getKeys()) {
      const kind = Array.isArray(key) ? key[0] : undefined;
      if (kind === 'u') counts.users++;
      else if (LEARNED.has(kind as string)) counts.learned++;
    }
  });
  withEnv(path.join(dir, 'outbox.mdb'), {}, (root) => {
    // Opened as the outbox opens it: its records share msgpackr structures stored under this key.
    const states = root.openDB<{ status: string }>({ name: 'states', sharedStructuresKey: Symbol.for('structures') });
    for (const { value } of states.getRange()) {
      if (value?.status === 'pending') counts.triggers_pending++;
      else if (value?.status === 'dead') counts.triggers_dead++;
    }
  });
  return counts;
}

function withEnv(p: string, opts: { useRecords?: boolean }, read: (root: RootDatabase) => void): void {
  if (!existsSync(p)) return;
  const root = open({ path: p, readOnly: true, compression: false, ...opts } as never) as RootDatabase;
  try {
    read(root);
  } finally {
    void root.close();
  }
}

function entries(root: RootDatabase, name: string): number {
  try {
    return (root.openDB({ name }).getStats() as { entryCount: number }).entryCount;
  } catch {
    return 0; // never created: the node has none of that kind
  }
}
