/**
 * Timestamps are read by hand for speed (src/time/stamp.ts); what they mean must stay what
 * Date.parse says, for every shape the request schema lets through, in range or not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseStamp, stampMs } from '../src/time/stamp.js';
import { ISO_TIMESTAMP } from '../src/schemas/detect-request.js';
// Seeded: the same strings on every run.
import { mulberry32 as rng } from '../src/research/rng.js';


test('instants and offsets agree with Date.parse on 200,000 schema-shaped stamps, odd ones included', () => {
  const r = rng(7);
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  const two = (lo: number, hi: number) => String(int(lo, hi)).padStart(2, '0');
  const schema = new RegExp(ISO_TIMESTAMP);
  let checked = 0, invalid = 0;
  for (let k = 0; k < 200_000; k++) {
    const year = r() < 0.05 ? int(0, 120) : r() < 0.9 ? int(1990, 2040) : int(0, 9999);
    let s = `${String(year).padStart(4, '0')}-${two(0, 13)}-${two(0, 32)}T${two(0, 25)}:${two(0, 61)}`;
    if (r() < 0.9) {
      s += `:${two(0, 61)}`;
      if (r() < 0.3) s += '.' + Array.from({ length: int(1, 9) }, () => int(0, 9)).join('');
    }
    const z = r();
    s += z < 0.4 ? 'Z' : `${r() < 0.5 ? '+' : '-'}${two(0, 25)}${r() < 0.8 ? ':' : ''}${two(0, 61)}`;
    assert.ok(schema.test(s), `the generator made ${s}, which the schema refuses`);
    const want = Date.parse(s);
    assert.ok(Object.is(stampMs(s), want), `stampMs(${s}) = ${stampMs(s)}, Date.parse says ${want}`);
    if (Number.isNaN(want)) { invalid++; continue; }
    const p = parseStamp(s);
    assert.equal(p.ms, want, `parseStamp(${s}).ms`);
    const zone = /(Z|([+-])(\d{2}):?(\d{2}))$/.exec(s)!;
    const offset = zone[1] === 'Z' ? 0 : (zone[2] === '-' ? -1 : 1) * (Number(zone[3]) * 60 + Number(zone[4]));
    assert.equal(p.offsetMin, offset, `parseStamp(${s}).offsetMin`);
    checked++;
  }
  // Both kinds were exercised in earnest.
  assert.ok(checked > 50_000 && invalid > 50_000, `valid ${checked}, invalid ${invalid}`);
});

test('the everyday shapes', () => {
  assert.deepEqual(parseStamp('2024-05-06T07:28:00+01:00'), { ms: Date.UTC(2024, 4, 6, 6, 28), offsetMin: 60 });
  assert.deepEqual(parseStamp('2024-05-06T07:28Z'), { ms: Date.UTC(2024, 4, 6, 7, 28), offsetMin: 0 });
  assert.deepEqual(parseStamp('2024-05-06T07:28:00.123456-0430'), { ms: Date.UTC(2024, 4, 6, 11, 58, 0, 123), offsetMin: -270 });
  assert.ok(Number.isNaN(stampMs('2024-13-06T07:28:00Z')), 'month 13');
});
