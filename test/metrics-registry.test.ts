/**
 * The registry behind /metrics, read back the way Prometheus reads it (a strict parser of the
 * text format): hostile label values survive escaping intact, label sets stay bounded, the
 * process metrics are there, and gauges are read at scrape time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Metrics } from '../src/http/metrics.js';
import { MAX_VALUES_PER_LABEL, OTHER } from '../src/http/metrics-labels.js';
import { parseExposition } from './helpers/prom-text.js';

test('a hostile label value is escaped as the text format requires and reads back unchanged', async () => {
  const m = new Metrics();
  const hostile = 'a"b\\c\nd} x 1\n# TYPE evil counter\nevil{x="y"} 9';
  m.counter('dwell_test_total', 'a test counter').inc({ who: hostile }, 3);
  m.histogram('dwell_test_seconds', 'a test histogram', [0.1, 1]).observe({ who: hostile }, 0.5);
  const text = await m.render();
  const parsed = parseExposition(text);
  const sample = parsed.samples.find((s) => s.name === 'dwell_test_total')!;
  assert.deepEqual(sample.labels, { who: hostile });
  assert.equal(sample.value, 3);
  const bucket = parsed.samples.find((s) => s.name === 'dwell_test_seconds_bucket' && s.labels.le === '1')!;
  assert.deepEqual([bucket.labels.who, bucket.value], [hostile, 1]);
  assert.ok(!parsed.samples.some((s) => s.name === 'evil'), 'no line was injected');
  assert.ok(!parsed.types.has('evil'));
});

test('each label keeps at most MAX_VALUES_PER_LABEL values; later ones are counted together', async () => {
  const m = new Metrics();
  const c = m.counter('dwell_by_app_total', 'per app');
  for (let i = 0; i < MAX_VALUES_PER_LABEL + 50; i++) c.inc({ app_key: `app-${i}`, outcome: 'ok' });
  c.inc({ app_key: 'app-0', outcome: 'ok' }); // one seen before the cap keeps its own series
  const samples = parseExposition(await m.render()).samples.filter((s) => s.name === 'dwell_by_app_total');
  assert.equal(samples.length, MAX_VALUES_PER_LABEL + 1);
  assert.equal(samples.find((s) => s.labels.app_key === OTHER)?.value, 50);
  assert.equal(samples.find((s) => s.labels.app_key === 'app-0')?.value, 2);
});

test('default process metrics: memory, heap, event-loop lag and GC', async () => {
  const parsed = parseExposition(await new Metrics().render());
  const names = new Set(parsed.samples.map((s) => s.name));
  for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_eventloop_lag_p99_seconds']) {
    assert.ok(names.has(name), `${name} is exposed`);
  }
  assert.equal(parsed.types.get('nodejs_gc_duration_seconds'), 'histogram');
});

test('gauges are read at scrape time; counters asked for twice by name are one', async () => {
  const m = new Metrics();
  let depth = 1;
  m.gauge('dwell_test_depth', 'a depth', () => depth);
  m.gauge('dwell_test_per_kind', 'per kind', () => [[{ kind: 'a' }, depth * 2]], ['kind']);
  m.counter('dwell_twice_total', 'asked twice').inc({ outcome: 'x' });
  m.counter('dwell_twice_total', 'asked twice').inc({ outcome: 'x' });
  depth = 7;
  const samples = parseExposition(await m.render()).samples;
  assert.equal(samples.find((s) => s.name === 'dwell_test_depth')?.value, 7);
  assert.equal(samples.find((s) => s.name === 'dwell_test_per_kind' && s.labels.kind === 'a')?.value, 14);
  assert.equal(samples.find((s) => s.name === 'dwell_twice_total')?.value, 2);
});
