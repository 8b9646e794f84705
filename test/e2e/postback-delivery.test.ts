/**
 * Postbacks end to end (contract §3): the real `dwell serve` child process, and a real HTTP
 * receiver started here on 127.0.0.1. Every wait is on a condition with a deadline; retries fall
 * due by moving the server's clock (helpers/clock.ts), not by waiting out the backoff.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADMIN_TOKEN, startDwell, type Running } from '../helpers/server.js';
import { scrape } from '../helpers/scrape.js';
import { createApp, signed, type TestApp } from '../helpers/client.js';
import { visitRequest } from '../helpers/requests.js';
import { verifyPostback } from '../../src/index.js';
import { until } from '../helpers/until.js';
import { TEST_CLOCK, advance } from '../helpers/clock.js';

interface Arrival { path: string; url: string; id: string; body: string; trigger: any }

/** A customer's receiver: records every postback; `answer` decides the status by path and attempt. */
class Receiver {
  readonly arrivals: Arrival[] = [];
  private readonly attempts = new Map<string, number>();
  private server: http.Server | null = null;
  port = 0;
  constructor(private readonly answer: (path: string, attempt: number) => number = () => 200) {}

  async listen(port = 0): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        const id = String(req.headers['x-trigger-id']);
        const path = req.url!.split('?')[0];
        const attempt = (this.attempts.get(id) ?? 0) + 1;
        this.attempts.set(id, attempt);
        this.arrivals.push({ path, url: req.url!, id, body, trigger: JSON.parse(body) });
        const status = this.answer(path, attempt);
        if (status) res.writeHead(status).end(); // 0: no answer at all, the request hangs
      });
    });
    await new Promise<void>((r) => this.server!.listen(port, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r) ?? r(null));
    this.server = null;
  }

  on(path: string): Arrival[] {
    return this.arrivals.filter((a) => a.path === path);
  }
}


const admin = (dwell: Running, path: string, method = 'GET', body?: unknown) => fetch(dwell.url + path, {
  method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
}).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

/** Posts a visit request (2 events) with its own request_id. */
async function post(dwell: Running, app: TestApp, requestId: string): Promise<void> {
  const r = await signed(dwell.url, app, '/v1/detect', { ...visitRequest(), request_id: requestId });
  assert.equal(r.status, 202, JSON.stringify(r.body));
}

/** A probe that first moves the server's time a minute on, so that any retry due by then goes now (the dispatcher is woken). */
const later = <T>(probe: () => Promise<T> | T) => async () => {
  await advance(dwell, 60);
  return probe();
};

/** For each request, the distinct trigger ids that arrived for each of its events. */
function byEvent(arrivals: Arrival[]): Map<string, Set<string>> {
  const m = new Map<string, Set<string>>();
  for (const a of arrivals) {
    const k = `${a.trigger.data.request_id}/${a.trigger.data.event_id}`;
    m.set(k, (m.get(k) ?? new Set()).add(a.id));
  }
  return m;
}

let dwell: Running;
let replayOpen = false;
const receiver = new Receiver((path, attempt) => {
  if (path === '/fail3') return attempt <= 3 ? 500 : 200;
  if (path === '/replay') return replayOpen ? 200 : 500;
  if (path === '/never') return 500;
  return 200;
});
before(async () => {
  await receiver.listen();
  dwell = await startDwell(TEST_CLOCK);
});
after(async () => {
  await dwell.stop();
  await receiver.close();
});

test('one signed trigger per event, with user_info and the caller\'s ids, delivered at the first attempt', async () => {
  const app = await createApp(dwell.url, { method: 'postback', url: receiver.url('/ok') });
  await post(dwell, app, 'req-one');
  const got = await until('both triggers', () => receiver.on('/ok').length >= 2 && receiver.on('/ok'));
  const events = byEvent(got);
  assert.deepEqual([...events.keys()].sort(), ['req-one/ev-1', 'req-one/ev-2']);
  for (const ids of events.values()) assert.equal(ids.size, 1, 'exactly one trigger per event');
  assert.equal(got.length, 2, 'each sent once: no retry, so no backoff before it');
  for (const a of got) {
    assert.equal(verifyPostback(app.app_secret, a.url, a.body), true, 'the signature verifies');
    assert.equal(a.id, a.trigger.data.id, 'X-Trigger-Id is data.id');
    assert.equal(a.trigger.result, 'SUCCESS');
    assert.deepEqual(a.trigger.data.user_info, { user_id: 'user-1', device_id: 'ad-1', app_key: app.app_key, custom_data: { plan: 'gold' } });
  }
  assert.equal(got.find((a) => a.trigger.data.event_id === 'ev-1')!.trigger.data.visit.event_type, 'visit');
  await until('the outbox to empty', async () => (await admin(dwell, `/admin/apps/${app.app_key}/deliveries`)).body.count === 0);
  // The worker reports its counts to the main thread about twice a second.
  const metrics = await until('attempts in /metrics', async () => {
    const text = await scrape(dwell.url);
    return /dwell_postback_attempts_total\{outcome="success"\} \d+/.test(text) && text;
  });
  assert.match(metrics, /dwell_postback_first_attempt_seconds_count \d+/);
  assert.match(metrics, /dwell_outbox_pending \d+/);
  assert.match(metrics, /dwell_outbox_oldest_pending_age_seconds [\d.]+/);
});

test('an empty advertising_id is no device: device_id is null, user_id as sent', async () => {
  const app = await createApp(dwell.url, { method: 'postback', url: receiver.url('/no-ad') });
  const r = await signed(dwell.url, app, '/v1/detect', { ...visitRequest(), request_id: 'req-no-ad', advertising_id: '' });
  assert.equal(r.status, 202, JSON.stringify(r.body));
  const [a] = await until('a trigger', () => receiver.on('/no-ad').length >= 1 && receiver.on('/no-ad'));
  assert.deepEqual(a.trigger.data.user_info, { user_id: 'user-1', device_id: null, app_key: app.app_key, custom_data: { plan: 'gold' } });
});

test('a receiver that fails three times gets the same trigger on the fourth attempt', async () => {
  const app = await createApp(dwell.url, { method: 'postback', url: receiver.url('/fail3') });
  await post(dwell, app, 'req-fail3');
  const got = await until('a fourth attempt of each trigger', later(() => {
    const events = byEvent(receiver.on('/fail3'));
    return events.size === 2 && [...events.values()].every((ids) => [...ids].every((id) => receiver.on('/fail3').filter((a) => a.id === id).length >= 4)) && receiver.on('/fail3');
  }));
  for (const ids of byEvent(got).values()) assert.equal(ids.size, 1, 'the same X-Trigger-Id on every attempt');
  const bodies = new Map<string, Set<string>>();
  for (const a of got) bodies.set(a.id, (bodies.get(a.id) ?? new Set()).add(a.body));
  for (const b of bodies.values()) assert.equal(b.size, 1, 'the same body on every attempt');
  await until('the outbox to empty', async () => (await admin(dwell, `/admin/apps/${app.app_key}/deliveries`)).body.count === 0);
});

test('a receiver that is down for a while gets everything once it is back', async () => {
  const down = new Receiver();
  await down.listen();
  const port = down.port;
  await down.close(); // the port is free: connections are refused
  const app = await createApp(dwell.url, { method: 'postback', url: `http://127.0.0.1:${port}/hook` });
  for (let i = 0; i < 5; i++) await post(dwell, app, `req-down-${i}`);
  await until('failed attempts', later(async () => {
    const { body } = await admin(dwell, `/admin/apps/${app.app_key}/deliveries?status=pending`);
    return body.count === 10 && body.deliveries.every((d: any) => d.attempts >= 2 && /ECONNREFUSED/.test(d.last_error));
  }));
  await down.listen(port);
  try {
    await until('all 10 triggers', later(() => byEvent(down.arrivals).size === 10));
    assert.equal(new Set(down.arrivals.map((a) => a.id)).size, 10);
  } finally {
    await down.close();
  }
});

test('a trigger still failing 24 h after it was queued is dead, saying so', async () => {
  const app = await createApp(dwell.url, { method: 'postback', url: receiver.url('/never') });
  await post(dwell, app, 'req-never');
  await until('a failed attempt of each', () => byEvent(receiver.on('/never')).size === 2);
  const pending = async () => (await admin(dwell, `/admin/apps/${app.app_key}/deliveries?status=pending`)).body.count;
  await advance(dwell, 23 * 3600);
  await until('a retry within the day', later(() => receiver.on('/never').length >= 4));
  assert.equal(await pending(), 2, 'retried, not given up, before the 24 h are over');
  await advance(dwell, 3600);
  const dead = await until('both dead', later(async () => {
    const { body } = await admin(dwell, `/admin/apps/${app.app_key}/deliveries?status=dead`);
    return body.count === 2 && body;
  }));
  for (const d of dead.deliveries) assert.match(d.last_error, /^gave up after \d+ attempt\(s\) over 24 h; last: expected a 2xx answer, got HTTP 500$/);
  assert.equal(await pending(), 0);
});

test('dead triggers are listed and replayed through the admin API', async () => {
  const app = await createApp(dwell.url, { method: 'postback', url: receiver.url('/replay') });
  await post(dwell, app, 'req-replay'); // /replay answers 500 until replayOpen
  await until('failed attempts', later(() => receiver.on('/replay').length >= 2));
  // Switched to sync with triggers still queued: the sender gives them up, saying why.
  await admin(dwell, `/admin/apps/${app.app_key}`, 'PATCH', { delivery: { method: 'sync' } });
  const dead = await until('dead triggers', async () => {
    const { body } = await admin(dwell, `/admin/apps/${app.app_key}/deliveries?status=dead`);
    return body.count === 2 && body;
  });
  assert.match(dead.deliveries[0].last_error, /set to sync delivery, not postback/);
  replayOpen = true;
  await admin(dwell, `/admin/apps/${app.app_key}`, 'PATCH', { delivery: { method: 'postback', url: receiver.url('/replay') } });
  assert.deepEqual((await admin(dwell, `/admin/apps/${app.app_key}/deliveries/replay`, 'POST')).body, { replayed: 2 });
  await until('both triggers accepted', async () => (await admin(dwell, `/admin/apps/${app.app_key}/deliveries?status=dead`)).body.count === 0
    && (await admin(dwell, `/admin/apps/${app.app_key}/deliveries?status=pending`)).body.count === 0);
  assert.equal(byEvent(receiver.on('/replay')).size, 2);
});

test('kill -9 right after a burst of 202s, then a restart: every trigger arrives', async () => {
  // The receiver holds its answers until the crash: sends are in flight when the server dies.
  let crashed = false;
  const sink = await new Receiver(() => (crashed ? 200 : 0)).listen();
  const crashing = await startDwell();
  try {
    const app = await createApp(crashing.url, { method: 'postback', url: sink.url('/crash') });
    const ids = Array.from({ length: 40 }, (_, i) => `req-crash-${i}`);
    await Promise.all(ids.map((id) => post(crashing, app, id)));
    await until('sends in flight', () => sink.arrivals.length >= 32);
    await crashing.stop('SIGKILL');
    crashed = true;
    const arrivedBefore = new Set(sink.arrivals.map((a) => a.id)).size;
    const restarted = await startDwell({ DWELL_DATA_DIR: crashing.dataDir });
    try {
      await until('all 80 triggers', () => byEvent(sink.arrivals).size === 80);
      for (const [event, got] of byEvent(sink.arrivals)) assert.equal(got.size, 1, `${event}: one trigger id`);
      assert.ok(arrivedBefore >= 32 && arrivedBefore < 80, `${arrivedBefore} were sent, none acknowledged, before the crash`);
      await until('the outbox to empty', async () => (await admin(restarted, `/admin/apps/${app.app_key}/deliveries`)).body.count === 0);
    } finally {
      await restarted.stop();
    }
  } finally {
    if (crashing.proc.exitCode === null && crashing.proc.signalCode === null) await crashing.stop('SIGKILL');
    await sink.close();
  }
});
