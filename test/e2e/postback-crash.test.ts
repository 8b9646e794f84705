/**
 * Leases live in the server's memory (src/delivery/leases.ts), so a kill -9 forgets them: the
 * restarted server sends what the dead one held at once, not after a lease. That needs one
 * server per data directory, which `dwell serve` enforces with a lock file. Real `dwell serve`
 * children and a real receiver; no timed assertions: the outbox is read between the crash and
 * the restart, and arrival is awaited under a deadline.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ADMIN_TOKEN, serveRefusal, startDwell, tempDir, type Running } from '../helpers/server.js';
import { scrape } from '../helpers/scrape.js';
import { createApp, signed } from '../helpers/client.js';
import { visitRequest } from '../helpers/requests.js';
import { Outbox } from '../../src/delivery/outbox.js';
import { EXIT_DATA_DIR_IN_USE, LOCK_FILE } from '../../src/data-dir-lock.js';
import { until } from '../helpers/until.js';


/** A receiver that holds every request open (no answer) until `open` is set, then answers 200. */
async function holdingReceiver() {
  const held: http.ServerResponse[] = [];
  const arrivals: Array<{ id: string; afterRestart: boolean }> = [];
  const state = { open: false };
  const server = http.createServer((req, res) => {
    req.resume().on('end', () => {
      arrivals.push({ id: String(req.headers['x-trigger-id']), afterRestart: state.open });
      if (state.open) res.writeHead(200).end();
      else held.push(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, arrivals, state,
    close: () => { server.closeAllConnections(); server.close(); },
  };
}

const metric = async (dwell: Running, line: RegExp) => Number((await scrape(dwell.url)).match(line)?.[1] ?? 0);

test('kill -9 while the receiver holds claimed triggers open: nothing was pushed into the future, and a restart sends them at once', async () => {
  const sink = await holdingReceiver();
  const first = await startDwell();
  let restarted: Running | undefined;
  try {
    const app = await createApp(first.url, { method: 'postback', url: sink.url });
    for (let i = 0; i < 5; i++) {
      const r = await signed(first.url, app, '/v1/detect', { ...visitRequest(), request_id: `crash-${i}` });
      assert.equal(r.status, 202);
    }
    await until('all 10 triggers claimed and held open by the receiver', () => new Set(sink.arrivals.map((a) => a.id)).size === 10);
    await first.stop('SIGKILL');

    // Between the crash and the restart: every trigger is pending and due since it was queued. A
    // durable lease would have moved each one's next_at to claim time + lease (30 s to 130 s).
    const outbox = new Outbox(first.dataDir);
    try {
      const pending = outbox.list(app.app_key, 'pending');
      assert.equal(pending.length, 10);
      for (const e of pending) assert.equal(e.next_at, e.created_at, `${e.id}: due as queued, not moved on by a lease`);
    } finally {
      await outbox.close();
    }

    sink.state.open = true;
    restarted = await startDwell({ DWELL_DATA_DIR: first.dataDir });
    await until('every trigger acknowledged by the restarted server', async () => (await metric(restarted!, /dwell_postback_attempts_total\{outcome="success"\} (\d+)/)) === 10);
    const before = new Set(sink.arrivals.filter((a) => !a.afterRestart).map((a) => a.id));
    const after = new Set(sink.arrivals.filter((a) => a.afterRestart).map((a) => a.id));
    assert.deepEqual([...after].sort(), [...before].sort(), 'the same X-Trigger-Id sent again');
    const list = await (await fetch(`${restarted.url}/admin/apps/${app.app_key}/deliveries`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json() as { count: number };
    assert.equal(list.count, 0, 'the outbox is empty');
  } finally {
    await restarted?.stop();
    if (first.proc.exitCode === null && first.proc.signalCode === null) await first.stop('SIGKILL');
    sink.close();
  }
});

/** Runs `dwell serve` on `dataDir` expecting it to refuse: its exit code and stderr. */
async function serveRefused(dataDir: string): Promise<{ code: number | null; stderr: string }> {
  const { code, output } = await serveRefusal({ env: { ...process.env, PORT: '0', DWELL_HOST: '127.0.0.1', DWELL_DATA_DIR: dataDir, DWELL_WORKERS: '1' } });
  return { code, stderr: output };
}

test('one server per data directory: a second one exits with a clear error; a dead owner\'s lock is taken over', async () => {
  // A directory that does not exist yet: the first server creates it, as before.
  const first = await startDwell({ DWELL_DATA_DIR: path.join(tempDir(), 'not-yet') });
  try {
    const lock = path.join(first.dataDir, LOCK_FILE);
    assert.equal(readFileSync(lock, 'utf8').split(' ')[0], String(first.proc.pid));
    const second = await serveRefused(first.dataDir);
    assert.equal(second.code, EXIT_DATA_DIR_IN_USE);
    assert.match(second.stderr, new RegExp(`in use by another dwell server \\(pid ${first.proc.pid}\\)`));
    await first.stop('SIGKILL'); // leaves its lock behind
    const next = await startDwell({ DWELL_DATA_DIR: first.dataDir });
    assert.equal(readFileSync(lock, 'utf8').split(' ')[0], String(next.proc.pid), 'the stale lock is taken over');
    const code = await next.stop();
    // A server killed by a signal (code null) says which, with the end of its log, if this fails.
    assert.equal(code, 0, `the second server's clean stop: exit ${code}, signal ${next.proc.signalCode}; its log ends:\n${next.logs.slice(-15).join('\n')}`);
    assert.throws(() => readFileSync(lock), /ENOENT/, 'a clean stop removes the lock');
  } finally {
    if (first.proc.exitCode === null && first.proc.signalCode === null) await first.stop('SIGKILL');
  }
});
