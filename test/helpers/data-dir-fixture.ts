/**
 * Makes a fixture data directory written by this release (test/fixtures/data-dir-v<N>/): a node
 * is started on an empty directory and given a synchronous app with a user's visit and a beacon,
 * a postback app with a geofence and a trigger left pending (its receiver hangs), then backed up
 * with `dwell backup` and restored into the fixture directory with `dwell restore` (compacted,
 * no lock files). What the tests need to reach it (keys, secrets, ids) goes to fixture.json.
 *
 *   npm run build && node dist/test/helpers/data-dir-fixture.js test/fixtures/data-dir-v1
 */
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startDwell, tempDir } from './server.js';
import { createApp, signed } from './client.js';
import { CASINO, fixes } from './requests.js';
import { dwell, holdingReceiver } from './dwell-cli.js';
import { until } from './until.js';

export interface DataDirFixture {
  format_version: number;
  dwell_version: string;
  sync: { app_key: string; app_secret: string; user: string; beacon: string };
  postback: { app_key: string; app_secret: string; geofence: string; pending_request: string };
  /** When the directory was written (its pending triggers' enqueue time): tests open it on that day (DWELL_TEST_CLOCK), so none has aged past contract §3's 24 hours or the retention window. */
  written_at: string;
  /** The visit day (2024-05-<day>) of the user's first visit. */
  first_visit: string;
}

export const fixtureVisit = (user: string, day: string, requestId: string) => ({
  request_id: requestId,
  advertising_id: user,
  events: [{
    event_id: `ev-${day}`, type: 'visit', start_time: `2024-05-${day}T07:25:00+02:00`, end_time: `2024-05-${day}T07:50:00+02:00`,
    data: fixes(CASINO, `2024-05-${day}T07`, [27, 31, 35, 40, 45]),
  }],
});

async function make(target: string): Promise<void> {
  const sink = await holdingReceiver();
  const node = await startDwell({ DWELL_POSTBACK_TIMEOUT_MS: '600000' });
  try {
    const sync = await createApp(node.url, { method: 'sync' }, { name: 'fixture sync' });
    const post = await createApp(node.url, { method: 'postback', url: sink.url }, { name: 'fixture postback' });
    const ok = async (r: Promise<{ status: number; body: any }>, status = 200) => {
      const a = await r;
      if (a.status !== status) throw new Error(`${a.status} ${JSON.stringify(a.body)}`);
      return a.body;
    };
    const beacon = await ok(signed(node.url, sync, `/v2/apps/${sync.app_key}/beacons/create`, { uuid: 'f7826da6-4fa2-4e98-8024-bc5b71e0893e', major: 1, minor: 1, location: { lat: CASINO.lat, long: CASINO.long }, tag: 'fixture' }));
    const geofence = await ok(signed(node.url, post, `/v2/apps/${post.app_key}/geofences/create`, { tag: 'fixture', ttl: 0, location: { lat: CASINO.lat, long: CASINO.long, radius: 100 } }));
    await ok(signed(node.url, sync, '/v1/detect', fixtureVisit('fixture-user', '06', 'fixture-sync')));
    await ok(signed(node.url, post, '/v1/detect', fixtureVisit('fixture-user', '06', 'fixture-pending')), 202);
    await until('the trigger held by the receiver', () => sink.arrivals.length > 0);
    const written = Date.now();
    const out = path.join(tempDir(), 'backup');
    const b = await dwell(['backup', '--out', out, '--data-dir', node.dataDir]);
    if (b.code !== 0) throw new Error(b.stderr);
    rmSync(target, { recursive: true, force: true });
    const r = await dwell(['restore', out, '--data-dir', target]);
    if (r.code !== 0) throw new Error(r.stderr);
    const manifest = JSON.parse(b.stdout);
    const fixture: DataDirFixture = {
      format_version: manifest.format_version,
      dwell_version: manifest.dwell_version,
      sync: { app_key: sync.app_key, app_secret: sync.app_secret, user: 'fixture-user', beacon },
      postback: { app_key: post.app_key, app_secret: post.app_secret, geofence, pending_request: 'fixture-pending' },
      first_visit: '06',
      written_at: new Date(written).toISOString(),
    };
    writeFileSync(path.join(target, 'fixture.json'), JSON.stringify(fixture, null, 2) + '\n');
    process.stdout.write(`${target}: ${JSON.stringify(manifest.counts)}\n`);
  } finally {
    await node.stop('SIGKILL');
    sink.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await make(path.resolve(process.argv[2] ?? 'test/fixtures/data-dir-v1'));
