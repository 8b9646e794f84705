/**
 * Contract §6's backup and restore, end to end with real `dwell` processes: a node under a steady
 * load of detections (a postback app whose receiver hangs, so triggers pend; a synchronous app)
 * is backed up while it serves, killed with SIGKILL, and the backup restored into a new
 * directory. The node started there answers as the first did when the backup was taken: its apps
 * sign with their secrets, its geofence and beacon read back, every user acknowledged before the
 * backup began has a history (first_visit_time), and every trigger pending in the backup is
 * delivered, each once (the receiver answers at once, so nothing is retried).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { ADMIN_TOKEN, startDwell, tempDir, type Running } from '../helpers/server.js';
import { createApp, signed, type TestApp } from '../helpers/client.js';
import { CASINO, fixes } from '../helpers/requests.js';
import { scrape } from '../helpers/scrape.js';
import { dwell, holdingReceiver } from '../helpers/dwell-cli.js';
import { until } from '../helpers/until.js';

/** A 25-minute visit at the casino on 2024-05-<day>: the user's first there unless history says otherwise. */
const visit = (user: string, day: string, requestId: string) => ({
  request_id: requestId,
  advertising_id: user,
  events: [{
    event_id: `ev-${day}`, type: 'visit', start_time: `2024-05-${day}T07:25:00+02:00`, end_time: `2024-05-${day}T07:50:00+02:00`,
    data: fixes(CASINO, `2024-05-${day}T07`, [27, 31, 35, 40, 45]),
  }],
});
const FIRST = Date.parse('2024-05-06T07:25:00+02:00');
const deliveries = async (node: Running, app: TestApp) =>
  (await (await fetch(`${node.url}/admin/apps/${app.app_key}/deliveries`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as { count: number };

test('a backup taken under load, after a kill -9, restores to a node that answers as the first did', async () => {
  const sink = await holdingReceiver();
  // Held sends stay claimed (not retried) for the whole test: every trigger stays pending and due.
  const first = await startDwell({ DWELL_POSTBACK_TIMEOUT_MS: '600000' });
  let restored: Running | undefined;
  try {
    const post = await createApp(first.url, { method: 'postback', url: sink.url });
    const sync = await createApp(first.url);
    const fence = await signed(first.url, post, `/v2/apps/${post.app_key}/geofences/create`, { tag: 'casino', ttl: 0, location: { lat: CASINO.lat, long: CASINO.long, radius: 100 } });
    assert.equal(fence.status, 200, JSON.stringify(fence.body));
    const trigger = await signed(first.url, post, `/v2/apps/${post.app_key}/place-triggers/create`, { brand: 'Starbucks' });
    assert.equal(trigger.status, 200, JSON.stringify(trigger.body));
    const beacon = await signed(first.url, sync, `/v2/apps/${sync.app_key}/beacons/create`, { uuid: 'f7826da6-4fa2-4e98-8024-bc5b71e0893e', major: 1, minor: 7, location: { lat: CASINO.lat, long: CASINO.long } });
    assert.equal(beacon.status, 200, JSON.stringify(beacon.body));

    // The load: two clients, each request a new user's first visit, until the node is killed.
    const acked = { post: new Map<string, string>(), sync: new Set<string>() }; // request_id → user; users
    let n = 0, loading = true;
    const client = async () => {
      while (loading) {
        const i = n++;
        const app = i % 2 ? sync : post, user = `user-${i}`;
        const r = await signed(first.url, app, '/v1/detect', visit(user, '06', `load-${i}`)).catch(() => undefined);
        if (r?.status === 202) acked.post.set(`load-${i}`, user);
        else if (r?.status === 200) acked.sync.add(user);
        else if (loading && r) assert.fail(`a detection under load answered ${r.status}: ${JSON.stringify(r.body)}`);
      }
    };
    const load = [client(), client()];
    await until('some requests acknowledged', () => acked.post.size >= 15 && acked.sync.size >= 15);

    const before = { post: new Map(acked.post), sync: new Set(acked.sync) };
    const out = path.join(tempDir(), 'backup');
    const backup = await dwell(['backup', '--out', out], { DWELL_DATA_DIR: first.dataDir });
    assert.equal(backup.code, 0, backup.stderr);
    const manifest = JSON.parse(backup.stdout);
    assert.deepEqual(manifest.order, ['outbox', 'recent', 'geofences', 'users', 'beacons', 'place-triggers', 'replay', 'apps']);
    assert.equal(manifest.counts.apps, 2);
    assert.equal(manifest.counts.geofences, 1);
    assert.equal(manifest.counts.beacons, 1);
    assert.ok(manifest.counts.users >= before.post.size + before.sync.size, `${manifest.counts.users} users in the backup, ${before.post.size + before.sync.size} acknowledged before it`);
    assert.ok(manifest.counts.triggers_pending >= before.post.size, `${manifest.counts.triggers_pending} pending triggers, ${before.post.size} requests acknowledged`);

    // The serving node reports the backup taken of its directory.
    const metrics = await scrape(first.url);
    assert.equal(Number(/^dwell_backup_last_size_bytes (\d+)/m.exec(metrics)?.[1]), manifest.bytes);
    assert.ok(Number(/^dwell_backup_last_success_timestamp_seconds (\S+)/m.exec(metrics)?.[1]) * 1000 >= Date.parse(manifest.created_at));

    await first.stop('SIGKILL');
    loading = false;
    await Promise.all(load);

    const dir = path.join(tempDir(), 'restored');
    const restore = await dwell(['restore', out, '--data-dir', dir]);
    assert.equal(restore.code, 0, restore.stderr);
    assert.deepEqual(JSON.parse(restore.stdout).counts, manifest.counts);
    sink.open();
    restored = await startDwell({ DWELL_DATA_DIR: dir });

    // Every app signs with its secret; the geofence and the beacon read back.
    assert.equal((await signed(restored.url, post, `/v2/apps/${post.app_key}/geofences/${fence.body}`)).status, 200);
    assert.equal((await signed(restored.url, post, `/v2/apps/${post.app_key}/place-triggers/${trigger.body}`)).status, 200);
    assert.equal((await signed(restored.url, sync, `/v2/apps/${sync.app_key}/beacons/${beacon.body}`)).status, 200);

    // Every trigger pending in the backup is delivered, each once, those of every request
    // acknowledged before the backup began among them.
    const sent = () => sink.arrivals.filter((a) => a.open);
    await until(`the backup's ${manifest.counts.triggers_pending} pending triggers delivered`, () => sent().length >= manifest.counts.triggers_pending);
    await until('the restored outbox empty', async () => (await deliveries(restored!, post)).count === 0);
    const ids = sent().map((a) => a.id);
    assert.equal(new Set(ids).size, ids.length, 'a trigger sent twice by the restored node');
    assert.equal(ids.length, manifest.counts.triggers_pending);
    const delivered = new Set(sent().map((a) => a.body.data.request_id));
    for (const id of before.post.keys()) assert.ok(delivered.has(id), `the trigger of ${id}, acknowledged before the backup, was not delivered`);

    // Every user acknowledged before the backup, and every user a delivered trigger names, has a
    // history: a later visit's first_visit_time is the first one's.
    const users = new Set([...before.post.values(), ...sent().map((a) => a.body.data.user_info.device_id as string)]);
    for (const user of users) {
      const r = await signed(restored.url, post, '/v1/detect', visit(user, '20', `again-${user}`));
      assert.equal(r.status, 202, JSON.stringify(r.body));
    }
    await until('a trigger for every later visit', () => users.size === sent().filter((a) => a.body.data.request_id.startsWith('again-')).length);
    for (const a of sent().filter((x) => x.body.data.request_id.startsWith('again-'))) {
      assert.equal(Date.parse(a.body.data.visit.place.first_visit_time), FIRST, `${a.body.data.user_info.device_id}: no history after the restore`);
    }
    for (const user of before.sync) {
      const r = await signed(restored.url, sync, '/v1/detect', visit(user, '20', `again-${user}`));
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(Date.parse(r.body.data[0].visit.place.first_visit_time), FIRST, `${user}: no history after the restore`);
    }
  } finally {
    await restored?.stop();
    if (first.proc.exitCode === null && first.proc.signalCode === null) await first.stop('SIGKILL');
    sink.close();
  }
});

test('restore refuses a directory in use, one not empty (unless --force), a damaged backup; backup refuses a non-empty --out', async () => {
  const node = await startDwell();
  try {
    const out = path.join(tempDir(), 'b');
    assert.equal((await dwell(['backup', '--out', out, '--data-dir', node.dataDir])).code, 0);
    const again = await dwell(['backup', '--out', out, '--data-dir', node.dataDir]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /is not empty: a backup goes into a new or empty directory/);

    const inUse = await dwell(['restore', out, '--data-dir', node.dataDir]);
    assert.equal(inUse.code, 3, inUse.stderr);
    assert.match(inUse.stderr, new RegExp(`in use by another dwell server \\(pid ${node.proc.pid}\\)`));

    const dir = tempDir();
    assert.equal((await dwell(['restore', out, '--data-dir', dir])).code, 0);
    const full = await dwell(['restore', out, '--data-dir', dir]);
    assert.equal(full.code, 1);
    assert.match(full.stderr, /is not empty \(.*\): restore into an empty one, or pass --force/);
    const forced = await dwell(['restore', out, '--data-dir', dir, '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.deepEqual(readdirSync(dir).sort(), ['apps.mdb', 'beacons.mdb', 'format.json', 'geofences.mdb', 'outbox.mdb', 'place-triggers.mdb', 'recent', 'replay.mdb', 'users']);

    // One byte of the users environment changed: refused before anything is written.
    const { readFileSync, writeFileSync } = await import('node:fs');
    const file = path.join(out, 'users', 'data.mdb');
    const bytes = readFileSync(file);
    bytes[bytes.length - 1] ^= 0xff;
    writeFileSync(file, bytes);
    const target = path.join(tempDir(), 'never');
    const damaged = await dwell(['restore', out, '--data-dir', target]);
    assert.equal(damaged.code, 1);
    assert.match(damaged.stderr, /the backup .* is damaged: users\/data\.mdb has \d+ bytes, SHA-256 [0-9a-f]{64}; its manifest says/);
    assert.equal(existsSync(target), false, 'nothing written');
  } finally {
    await node.stop();
  }
});

test('in cluster mode, backup copies nothing and names the JetStream streams and buckets to back up', async () => {
  const out = path.join(tempDir(), 'b');
  const r = await dwell(['backup', '--out', out, '--state', 'nats://127.0.0.1:1']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /the state is in NATS JetStream .* nothing copied/);
  for (const name of ['DWELL_OUTBOX', 'DWELL_DEAD', 'KV_dwell-users-0', 'KV_dwell-apps', 'nats stream backup']) assert.ok(r.stderr.includes(name), `${name} not named:\n${r.stderr}`);
  assert.equal(existsSync(out), false);
});
