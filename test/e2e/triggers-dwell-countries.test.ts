/**
 * Contract §4's dwell event and §11's country events through the real server, in both engines:
 * the embedded one, and a cluster pair behind a round-robin proxy, so a user's consecutive
 * requests go through different nodes and must still get each event once (presence is user
 * state, in the user's record). Presence is the user's personal data: exported and erased with
 * them (§7). Time is the signals' own: the fixes carry 2024 timestamps, nothing waits.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startDwell, type Running } from '../helpers/server.js';
import { startPair } from '../helpers/cluster.js';
import { admin, createApp, signed, type TestApp } from '../helpers/client.js';
import { CASINO } from '../helpers/requests.js';
import { stampAfter } from '../helpers/stamps.js';

const NICE = { lat: 43.7034, long: 7.2663 };
const SEA = { lat: 43.7, long: 7.5 };
// 750 m west of the casino, still in Monaco.
const AWAY = { lat: 43.735, long: 7.421 };

const at = (minute: number, p: { lat: number; long: number }) => ({
  timestamp: stampAfter('2024-06-01T10:00:00+02:00', minute),
  location: { lat: p.lat, long: p.long, accuracy: 10, speed: 1 },
});

const engines: Array<[string, string, () => Promise<Running>]> = [
  ['embedded', 'e', () => startDwell()],
  ['cluster, requests alternating between two nodes', 'c', () => startPair({}, {})],
];

for (const [name, engine, start] of engines) {
  describe(name, () => {
    let node: Running;
    before(async () => { node = await start(); });
    after(async () => { await node?.stop(); });

    const detect = async (app: TestApp, body: Record<string, unknown>) => {
      const r = await signed(node.url, app, '/v1/detect', body);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body as { geofence_events: any[]; region_events: any[] };
    };
    const fence = async (app: TestApp, body: Record<string, unknown>) => {
      const r = await signed(node.url, app, `/v2/apps/${app.app_key}/geofences/create`, { ttl: 0, location: { ...CASINO, radius: 100 }, ...body });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body as string;
    };
    /** An event without its integrity (contract §12's, checked elsewhere). */
    const bare = (e: any) => { const copy = { ...e }; delete copy.integrity; return copy; };
    const kinds = (events: any[]) => events.map((e) => `${e.type} ${e.geofence_id ?? e.code}`);

    test('dwell: one event a stay, at the first fix at or after entry + dwell, counted across requests; re-entry restarts it', async () => {
      const app = await createApp(node.url);
      const d = await fence(app, { tag: 'stay', dwell: 300, metadata: { shop: 'casino', floor: 2 } });
      const plain = await fence(app, { tag: 'plain' });
      const user = { advertising_id: `dw-${engine}` };
      const step = async (...fixes: Array<ReturnType<typeof at>>) => (await detect(app, { ...user, data: fixes })).geofence_events;

      const entry = await step(at(0, AWAY), at(2, CASINO));
      assert.deepEqual(kinds(entry).sort(), [`entry ${d}`, `entry ${plain}`].sort());
      assert.deepEqual(entry.find((e) => e.geofence_id === d).metadata, { shop: 'casino', floor: 2 });
      assert.equal(entry.find((e) => e.geofence_id === plain).metadata, null);
      assert.deepEqual(await step(at(6, CASINO)), [], '4 minutes inside: not yet');
      const dwelled = await step(at(7, CASINO), at(8, CASINO));
      assert.deepEqual(kinds(dwelled), [`dwell ${d}`], '5 minutes inside: one dwell, none for the fence without');
      assert.equal(dwelled[0].timestamp, at(7, CASINO).timestamp);
      assert.deepEqual(dwelled[0].location, { ...CASINO, accuracy: 10 });
      assert.deepEqual(dwelled[0].metadata, { shop: 'casino', floor: 2 });
      assert.deepEqual(await step(at(9, CASINO), at(20, CASINO)), [], 'once a stay');
      const again = await step(at(21, AWAY), at(22, CASINO));
      assert.deepEqual(kinds(again).sort(), [`exit ${d}`, `exit ${plain}`, `entry ${d}`, `entry ${plain}`].sort());
      assert.deepEqual(await step(at(26, CASINO)), [], 'the count restarted at the new entry');
      assert.deepEqual(kinds(await step(at(27, CASINO))), [`dwell ${d}`]);
    });

    test('countries: entry on the first position, exit and entry on a crossing, the sea is no country', async () => {
      const app = await createApp(node.url, { method: 'sync' }, { region_events: true });
      const user = { advertising_id: `rg-${engine}` };
      const step = async (...fixes: Array<ReturnType<typeof at>>) => (await detect(app, { ...user, data: fixes })).region_events;

      const first = await step(at(0, CASINO));
      assert.deepEqual(first.map(bare), [{ type: 'entry', level: 'country', code: 'MC', name: 'Monaco', timestamp: at(0, CASINO).timestamp, location: { ...CASINO, accuracy: 10 } }]);
      assert.deepEqual(await step(at(1, CASINO)), [], 'still in Monaco');
      const crossed = await step(at(30, NICE));
      assert.deepEqual(crossed.map((e) => [e.type, e.code, e.name, e.timestamp, e.location.lat]), [
        ['exit', 'MC', 'Monaco', at(30, NICE).timestamp, NICE.lat],
        ['entry', 'FR', 'France', at(30, NICE).timestamp, NICE.lat],
      ]);
      assert.deepEqual(kinds(await step(at(60, SEA))), ['exit FR'], 'out to sea');
      assert.deepEqual(kinds(await step(at(90, CASINO))), ['entry MC'], 'ashore');

      // Without region_events nothing; without a user id, only the crossings within the request.
      const off = await createApp(node.url);
      assert.deepEqual((await detect(off, { ...user, data: [at(0, CASINO), at(30, NICE)] })).region_events, []);
      assert.deepEqual((await detect(app, { data: [at(0, CASINO)] })).region_events, [], 'anonymous: where it starts is no entry');
      assert.deepEqual(kinds((await detect(app, { data: [at(0, CASINO), at(30, NICE)] })).region_events), ['exit MC', 'entry FR']);
    });

    test('the same user\'s requests at once (through both nodes in the cluster): each event once in all', async () => {
      const app = await createApp(node.url, { method: 'sync' }, { region_events: true });
      const d = await fence(app, { dwell: 60 });
      const fixes = [at(0, AWAY), at(2, CASINO), at(4, CASINO)];
      const answers = await Promise.all([0, 1, 2, 3].map((i) => detect(app, { request_id: `same-${i}`, advertising_id: `cc-${engine}`, data: fixes })));
      assert.deepEqual(kinds(answers.flatMap((a) => a.geofence_events)).sort(), [`dwell ${d}`, `entry ${d}`]);
      assert.deepEqual(kinds(answers.flatMap((a) => a.region_events)), ['entry MC']);
    });

    test('postback apps get country and dwell events as triggers', async () => {
      const app = await createApp(node.url, { method: 'postback', url: 'http://127.0.0.1:9/unreachable' }, { region_events: true });
      const d = await fence(app, { dwell: 60 });
      const r = await signed(node.url, app, '/v1/detect', { request_id: 'pb-events', advertising_id: `pb-${engine}`, data: [at(0, AWAY), at(2, CASINO), at(4, CASINO), at(30, NICE)] });
      assert.equal(r.status, 202, JSON.stringify(r.body));
      const pending = await admin(node.url, `/admin/apps/${app.app_key}/deliveries?status=pending`);
      const data = pending.body.deliveries.map((x: any) => x.trigger.data).filter((t: any) => t.request_id === 'pb-events');
      assert.deepEqual(kinds(data.filter((t: any) => t.geofence_event).map((t: any) => t.geofence_event)).sort(), [`dwell ${d}`, `entry ${d}`, `exit ${d}`]);
      assert.deepEqual(kinds(data.filter((t: any) => t.region_event).map((t: any) => t.region_event)).sort(), ['entry FR', 'entry MC', 'exit MC'], 'listed in no particular order');
    });

    test('presence is exported and erased with the user: afterwards they enter again', async () => {
      const app = await createApp(node.url, { method: 'sync' }, { region_events: true });
      const d = await fence(app, { dwell: 600 });
      const user = { advertising_id: `px-${engine}` };
      await detect(app, { ...user, data: [at(0, CASINO)] });
      const exported = await signed(node.url, app, `/v2/apps/${app.app_key}/users/export?advertising_id=${user.advertising_id}`);
      assert.equal(exported.status, 200, JSON.stringify(exported.body));
      const u = exported.body.users[0];
      assert.deepEqual(u.geofence_presence.inside_geofences, [d]);
      assert.deepEqual(u.geofence_presence.dwell_counting, [{ geofence_id: d, entered_at: new Date(at(0, CASINO).timestamp).toISOString() }]);
      assert.equal(u.country_presence.country, 'MC');

      const erased = await signed(node.url, app, `/v2/apps/${app.app_key}/users/erase`, user);
      assert.equal(erased.status, 200, JSON.stringify(erased.body));
      assert.equal(erased.body.erased.geofence_presence, 1);
      const gone = await signed(node.url, app, `/v2/apps/${app.app_key}/users/export?advertising_id=${user.advertising_id}`);
      assert.deepEqual(gone.body.users[0].geofence_presence, null);
      assert.equal(gone.body.users[0].country_presence, undefined);
      const back = await detect(app, { ...user, data: [at(1, CASINO)] });
      assert.deepEqual(kinds(back.geofence_events), [`entry ${d}`]);
      assert.deepEqual(kinds(back.region_events), ['entry MC']);
    });
  });
}
