/** DWELL_WARM_UP (config.ts): the warm-up is on unless an operator (or a test's server) turns it off. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../src/config.js';

test('DWELL_WARM_UP: on by default, on or off from the environment or --warm-up, anything else refused by name', () => {
  assert.equal(loadConfig({}, {}).warmUp, 'on');
  assert.equal(loadConfig({}, { DWELL_WARM_UP: 'off' }).warmUp, 'off');
  assert.equal(loadConfig({ '--warm-up': 'on' }, { DWELL_WARM_UP: 'off' }).warmUp, 'on', 'the flag wins over the environment');
  for (const bad of ['', 'no', 'false', 'OFF', '0']) {
    assert.throws(() => loadConfig({}, { DWELL_WARM_UP: bad }), { message: `setting DWELL_WARM_UP (--warm-up): expected on or off, got ${JSON.stringify(bad)}` });
  }
});
