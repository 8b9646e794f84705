/** Learned footprints (src/detect/evidence/footprint.ts) over the real LMDB user store. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { openUserStore } from '../src/users/store.js';
import { learnedRadius, learnFootprints } from '../src/detect/evidence/footprint.js';
import { DEFAULT_PARAMS } from '../src/detect/params.js';
import { tempDir } from './detect-helpers.js';

const FOOTPRINT = DEFAULT_PARAMS.footprint;

const CAR_PARK = 7001, FOUNTAIN = 7002;

test('stays far from a type\'s points widen it, stays on them narrow it, and both survive a restart', () => {
  const dir = tempDir();
  let users = openUserStore(dir);
  assert.equal(learnedRadius('app-a', users, CAR_PARK, 15, FOOTPRINT), 15, 'nothing learned: the prior radius');
  // 400 stays (two merges) with centres of error 8 m: car parks' stays sit 40–60 m from the
  // point, fountains' 2–6 m; each stay is shared 80/20 with a neighbour of the other type.
  for (let i = 0; i < 2 * FOOTPRINT.flushEvery; i++) {
    const far = 40 + (i % 21), near = 2 + (i % 5);
    learnFootprints('app-a', users, 8, [
      { typeId: i % 2 ? CAR_PARK : FOUNTAIN, probability: 0.8, distance: i % 2 ? far : near, radius: 15 },
      { typeId: i % 2 ? FOUNTAIN : CAR_PARK, probability: 0.2, distance: 30, radius: 15 },
    ], FOOTPRINT);
  }
  const park = learnedRadius('app-a', users, CAR_PARK, 15, FOOTPRINT), fountain = learnedRadius('app-a', users, FOUNTAIN, 15, FOOTPRINT);
  assert.ok(park > 50, `a car park's visitors spread wide: radius ${park.toFixed(1)} m, expected > 50`);
  assert.ok(fountain < 15, `a fountain's gather at it: radius ${fountain.toFixed(1)} m, expected < 15`);
  assert.equal(learnedRadius('app-b', users, CAR_PARK, 15, FOOTPRINT), 15, 'another app learns on its own');
  users.close();

  users = openUserStore(dir);
  // A new process starts from what the old one merged (a fresh store object: no in-memory state).
  const again = learnedRadius('app-a', users, CAR_PARK, 15, FOOTPRINT);
  assert.ok(Math.abs(again - park) < 0.5, `after a restart: ${again.toFixed(1)} m, before ${park.toFixed(1)} m`);
  users.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('one wild stay cannot blow a type\'s footprint up', () => {
  const dir = tempDir();
  const users = openUserStore(dir);
  learnFootprints('app-c', users, 10, [{ typeId: FOUNTAIN, probability: 1, distance: 5_000, radius: 15 }], FOOTPRINT);
  const r = learnedRadius('app-c', users, FOUNTAIN, 15, FOOTPRINT);
  // Clipped at 9 × (σ² + R²/4) = 9 × 156: one stay against a 10-stay prior.
  assert.ok(r < 30, `radius after one 5 km stay: ${r.toFixed(1)} m, expected < 30`);
  users.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
