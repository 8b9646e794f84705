/**
 * Another detection worker, for users-learned-cache.test: opens the same user store with the
 * shared version table and teaches an access point on each message, answering when committed.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openUserStore } from '../../src/users/store.js';
import { newVersions } from '../../src/learned/cache.js';

type Lesson = { app: string; bssid: string; lat: number; lon: number };

function serve(port: NonNullable<typeof parentPort>): void {
  const { dir, versions } = workerData as { dir: string; versions: SharedArrayBuffer };
  const users = openUserStore(dir, { versions: newVersions(versions) });
  port.on('message', (m: Lesson | 'close') => {
    if (m === 'close') { users.close(); port.close(); return; }
    users.learn(m.app, [{ bssid: m.bssid, at: [m.lat, m.lon, 1] }]);
    port.postMessage('taught');
  });
}

serve(parentPort!);
