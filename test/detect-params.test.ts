/**
 * The model's parameters (src/detect/params.ts): the defaults cannot be changed by anyone, and a
 * variant (what the accuracy harness measures) is a new frozen object that leaves them as they were.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_PARAMS, HAND_PARAMS, withParams, type ModelParams } from '../src/detect/params.js';
import { FITTED } from '../src/detect/fitted-params.js';

const snapshot = (p: ModelParams): string => JSON.stringify(p);

test('DEFAULT_PARAMS is frozen to the last number', () => {
  assert.ok(Object.isFrozen(DEFAULT_PARAMS), 'the object itself');
  for (const [name, group] of Object.entries(DEFAULT_PARAMS)) assert.ok(Object.isFrozen(group), `group ${name}`);
  const before = snapshot(DEFAULT_PARAMS);
  // Modules are strict: writing to a frozen object throws instead of being ignored.
  assert.throws(() => { (DEFAULT_PARAMS.weights as { gps: number }).gps = 0; }, TypeError);
  assert.throws(() => { (DEFAULT_PARAMS.leg as { on: number }).on = 0; }, TypeError);
  assert.throws(() => { (DEFAULT_PARAMS as { silence: unknown }).silence = {}; }, TypeError);
  assert.equal(snapshot(DEFAULT_PARAMS), before);
});

test('an override makes a new frozen object and leaves the defaults unchanged', () => {
  const before = snapshot(DEFAULT_PARAMS), temperature = DEFAULT_PARAMS.weights.temperature;
  const p = withParams(DEFAULT_PARAMS, { weights: { temperature: 1.2 }, leg: { on: 0 }, silence: { minMs: Infinity } });
  assert.notEqual(p, DEFAULT_PARAMS);
  assert.equal(p.weights.temperature, 1.2);
  assert.equal(p.leg.on, 0);
  assert.equal(p.silence.minMs, Infinity);
  assert.equal(p.weights.gps, DEFAULT_PARAMS.weights.gps, 'what is not overridden is the default');
  assert.ok(Object.isFrozen(p) && Object.isFrozen(p.weights) && Object.isFrozen(p.counted), 'the variant is frozen too');
  assert.equal(DEFAULT_PARAMS.weights.temperature, temperature);
  assert.equal(DEFAULT_PARAMS.leg.on, 1);
  assert.equal(snapshot(DEFAULT_PARAMS), before);
});

test('an unknown parameter is an error that names what was expected', () => {
  assert.throws(() => withParams(DEFAULT_PARAMS, { leg: { windowSeconds: 200 } } as never), /unknown model parameter "leg\.windowSeconds": expected one of windowS/);
  assert.throws(() => withParams(DEFAULT_PARAMS, { legs: { on: 0 } } as never), /unknown model parameter group "legs"/);
  assert.throws(() => withParams(DEFAULT_PARAMS, { weights: { gps: Number('x') } }), /"weights\.gps" must be a number, got NaN/);
});

test('the defaults are the hand-set values with the fitted weights over them, and nothing else', () => {
  for (const [g, group] of Object.entries(DEFAULT_PARAMS)) {
    for (const [k, v] of Object.entries(group)) {
      const want = FITTED[g]?.[k] ?? (HAND_PARAMS as unknown as Record<string, Record<string, number>>)[g][k];
      assert.equal(v, want, `${g}.${k}`);
    }
  }
});
