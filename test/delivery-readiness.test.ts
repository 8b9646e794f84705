/**
 * /readyz follows the delivery worker (contract §6: ready while the queues run). Nothing outside
 * the process may kill that thread on purpose (no hook for it is exposed, to customers or
 * operators), so this test runs the real delivery service in-process and lets its real worker
 * fail for real: on a data directory without the app registry (apps.mdb) the worker cannot open
 * the app settings it reads, throws, and exits, the way any fatal error in the thread ends it.
 * Readiness then names the delivery worker; once the registry exists, the restarted worker runs
 * and readiness comes back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { AppRegistry } from '../src/apps/registry.js';
import { Outbox } from '../src/delivery/outbox.js';
import { startDelivery } from '../src/delivery/service.js';
import { Metrics } from '../src/http/metrics.js';
import { readiness } from '../src/server/readiness.js';
import { loadStore } from '../src/venues/store.js';
import { ROOT, tempDir } from './helpers/server.js';
import { until } from './helpers/until.js';

test('readiness is 503 naming the delivery worker while it is down, and 200 once it runs again', async () => {
  const dataDir = tempDir();
  const outbox = new Outbox(dataDir);
  const delivery = startDelivery({ dataDir, outbox, metrics: new Metrics(), allowPrivate: false, logLevel: 'error' });
  let apps: AppRegistry | undefined;
  try {
    const store = await loadStore(path.join(ROOT, 'data', 'monaco'));
    await until('the delivery worker to exit', () => delivery.state() === 'restarting', 20_000);
    const down = readiness({ store, workers: 'warm', delivery: delivery.state(), draining: false });
    assert.equal(down.status, 503);
    const body = down.body as any;
    assert.deepEqual([body.error.code, body.checks], ['unavailable', { venue_store: 'open', workers: 'warm', delivery: 'restarting', server: 'serving' }]);
    assert.match(body.error.message, /delivery worker/);
    assert.equal(down.headers?.['Retry-After'], '2');

    apps = new AppRegistry(dataDir, { secretGraceS: 0, allowPrivate: false });
    await until('the restarted delivery worker to run', () => delivery.state() === 'running', 30_000);
    const up = readiness({ store, workers: 'warm', delivery: delivery.state(), draining: false });
    assert.equal(up.status, 200, JSON.stringify(up.body));
  } finally {
    await delivery.close();
    await apps?.close();
    await outbox.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
