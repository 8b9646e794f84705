/** The server's clock (src/time/clock.ts): real by default; a movable one shared by threads through its buffer, waking listeners in each. */
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { MovableClock, clock, clockBuffer, onAdvance, systemClock, useClock } from '../src/time/clock.js';
import { loadConfig } from '../src/config.js';

const DAY_MS = 86_400_000;
afterEach(() => useClock(systemClock));

/** `read()` between two real readings, shifted by `offset`. */
function between(read: () => number, offset = 0): void {
  const lo = Date.now(), t = read(), hi = Date.now();
  assert.ok(t >= lo + offset && t <= hi + offset, `${t} not within [${lo + offset}, ${hi + offset}]`);
}

test('the real clock unless a movable one is installed; nothing to hand to workers then', () => {
  between(clock.now);
  assert.equal(clockBuffer(), undefined);
  const unsubscribe = onAdvance(() => assert.fail('the real clock never moves'));
  unsubscribe();
});

test('a movable clock moves forward only, by what it was told, and answers its new time', () => {
  const c = useClock(new MovableClock()) as MovableClock;
  between(clock.now);
  between(() => c.advance(400 * DAY_MS), 400 * DAY_MS);
  between(clock.now, 400 * DAY_MS);
  assert.equal(c.offsetMs, 400 * DAY_MS);
  for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY]) assert.throws(() => c.advance(bad), RangeError);
  assert.equal(c.offsetMs, 400 * DAY_MS, 'a refused move changes nothing');
  assert.throws(() => new MovableClock(new SharedArrayBuffer(8)), /16-byte/);
});

test('DWELL_TEST_CLOCK as an instant starts the movable clock there, in the past too; a date without its zone is refused', () => {
  const at = loadConfig({}, { DWELL_TEST_CLOCK: '2026-11-26T00:17:09.336Z' }).testClock;
  assert.equal(at, Date.parse('2026-11-26T00:17:09.336Z'));
  const c = new MovableClock(undefined, at as number);
  assert.ok(Math.abs(c.now() - (at as number)) < 1_000, `started at ${new Date(c.now()).toISOString()}`);
  assert.equal(loadConfig({}, { DWELL_TEST_CLOCK: '1' }).testClock, true);
  assert.throws(() => loadConfig({}, { DWELL_TEST_CLOCK: '2026-11-26T00:17:09' }), /ISO-8601 instant with its zone/);
});

test('every thread given the buffer reads the same time, and its listeners wake on an advance', async () => {
  const c = useClock(new MovableClock()) as MovableClock;
  const buffer = clockBuffer()!;
  assert.equal(buffer, c.buffer);
  const url = new URL('../src/time/clock.js', import.meta.url).href;
  const worker = new Worker(`
    const { workerData, parentPort } = require('node:worker_threads');
    import(workerData.url).then(({ useClock, clock, onAdvance }) => {
      useClock(workerData.buffer);
      onAdvance(() => parentPort.postMessage({ woke: clock.now() }));
      parentPort.on('message', () => parentPort.postMessage({ now: clock.now() }));
      parentPort.postMessage({ ready: true });
    });`, { eval: true, workerData: { url, buffer } });
  const next = () => new Promise<Record<string, number>>((resolve) => worker.once('message', resolve));
  try {
    await next();
    let local = 0;
    let localWoke!: () => void;
    const localWakes = new Promise<void>((r) => (localWoke = r));
    const unsubscribe = onAdvance(() => { local++; localWoke(); });
    const woke = next();
    const lo = Date.now();
    c.advance(3_600_000); // no message: the worker learns of it from the shared memory alone
    const seen = await woke;
    assert.ok(seen.woke >= lo + 3_600_000 && seen.woke <= Date.now() + 3_600_000, `the worker woke and read the moved time (${seen.woke - lo} ms ahead)`);
    await localWakes;
    const asked = next();
    worker.postMessage('now');
    const { now } = await asked;
    assert.ok(now >= lo + 3_600_000 && now <= Date.now() + 3_600_000, 'the worker reads the moved time when asked');
    assert.equal(local, 1, 'this thread\'s listener ran once');
    unsubscribe();
    c.advance(1);
    await new Promise((r) => setImmediate(r)); // a turn for a (wrong) wake-up to arrive
    assert.equal(local, 1, 'not after unsubscribing');
  } finally {
    await worker.terminate();
  }
});
