/**
 * Every log line written for a request carries its request id, in the HTTP thread and in the
 * detection worker thread alike; the id is the caller's X-Request-Id when sane, else a new one,
 * and is answered as X-Request-Id. Several requests at once, so a line tagged with the wrong
 * request would show.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withDwellApp } from '../helpers/dwell.js';
import { signed } from '../helpers/client.js';
import { visitRequest } from '../helpers/requests.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

test('all log lines of a request share its id; the id is answered as X-Request-Id', async () => {
  await withDwellApp({ DWELL_LOG_LEVEL: 'debug' }, async (dwell) => {
    const app = dwell.app;
    const ids = Array.from({ length: 6 }, (_, i) => `trace-${i}.abc:DEF=/+_-${i}`);
    const answers = await Promise.all(ids.map((id, i) =>
      signed(dwell.url, app, '/v1/detect', { ...visitRequest(), request_id: `body-${i}` }, { headers: { 'x-request-id': id } })));
    for (const [i, a] of answers.entries()) {
      assert.equal(a.status, 200, JSON.stringify(a.body));
      assert.equal(a.headers.get('x-request-id'), ids[i]);
    }
    // Not a sane id (a space, too long): replaced, never echoed or logged.
    const odd = await signed(dwell.url, app, '/v1/detect', visitRequest(), { headers: { 'x-request-id': 'a b' } });
    const long = await fetch(dwell.url + '/healthz', { headers: { 'x-request-id': 'x'.repeat(129) } });
    const none = await fetch(dwell.url + '/nowhere');
    for (const h of [odd.headers, long.headers, none.headers]) assert.match(h.get('x-request-id')!, UUID);
    await dwell.stop();

    const lines = dwell.logs.map((l) => JSON.parse(l));
    for (const id of ids) {
      const mine = lines.filter((l) => l.request_id === id);
      assert.deepEqual(mine.map((l) => l.msg), ['request', 'detected', 'answered'], `the lines of ${id}`);
      assert.ok(mine.every((l) => l.route === undefined || l.route === '/v1/detect'));
      assert.equal(mine[2].status, 200);
      assert.equal(new Set(mine.map((l) => l.pid)).size, 1);
    }
    const oddId = odd.headers.get('x-request-id')!;
    assert.deepEqual(lines.filter((l) => l.request_id === oddId).map((l) => l.msg), ['request', 'detected', 'answered']);
    assert.deepEqual(lines.filter((l) => l.request_id === none.headers.get('x-request-id')).map((l) => [l.msg, l.status ?? null]), [['request', null], ['answered', 404]]);
    assert.ok(!dwell.logs.some((l) => l.includes('a b') || l.includes('x'.repeat(129))), 'the refused ids are not logged');
    // Lines of no request (startup, shutdown) carry no id.
    assert.equal(lines.find((l) => l.msg === 'listening')?.request_id, undefined);
    for (const l of lines) assert.ok(['debug', 'info', 'warn', 'error'].includes(l.level) && typeof l.time === 'string', JSON.stringify(l));
  });
});
