/**
 * The pure checks of contract §12 (src/integrity/check.ts, networks.ts) at their edges, where the
 * end-to-end tests (e2e/integrity-flags.test.ts) cannot cheaply go: a jump along a diagonal (the
 * quick degree test must not skip it), the previous position placed among the request's by time,
 * which learned places may accuse, and what of the networks heard detection takes from the checks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkSignals } from '../src/integrity/check.js';
import { mayAccuse, userTag, withWitness } from '../src/integrity/networks.js';
import { JUMPED, WIFI_MISMATCH } from '../src/integrity/flags.js';
import { lowerOf, placesOf } from '../src/integrity/heard.js';
import type { ApPlace } from '../src/learned/shapes.js';

const M = 111_195.08;
const at = (s: number, lat: number, long: number) => ({ timestamp: new Date(Date.UTC(2024, 5, 1, 12, 0, s)).toISOString(), location: { lat, long, accuracy: 10 } });
const jumped = (signals: ReturnType<typeof at>[], previous?: [number, number, number, number]) =>
  Array.from(checkSignals({ signals, previous, now: Date.UTC(2024, 5, 2), self: 0, places: () => [] }).bits, (b) => (b & JUMPED ? 1 : 0));

test('a diagonal jump of 12 km (8.5 km north and 8.5 km east) in 10 s is a jump; 9 km is not', () => {
  const east = (m: number) => m / (M * Math.cos((45 * Math.PI) / 180));
  assert.deepEqual(jumped([at(0, 45, 7), at(10, 45 + 8_500 / M, 7 + east(8_500))]), [1, 1]);
  assert.deepEqual(jumped([at(0, 45, 7), at(10, 45 + 6_300 / M, 7 + east(6_300))]), [0, 0]);
});

test('the position held from before is compared with the request\'s positions next to it in time, either side', () => {
  const t = Date.UTC(2024, 5, 1, 12, 0, 0);
  // Held at t+15 s, 20 km away: between the request's two fixes, so both neighbours are flagged.
  assert.deepEqual(jumped([at(0, 45, 7), at(30, 45, 7)], [45 + 20_000 / M, 7, 0, t + 15_000]), [1, 1]);
  // Held a day before: far, but slow enough.
  assert.deepEqual(jumped([at(0, 45, 7)], [45 + 20_000 / M, 7, 0, t - 86_400_000]), [0]);
  const c = checkSignals({ signals: [at(0, 45, 7)], previous: [46, 7, 0, t + 60_000], now: t, self: 0, places: () => [] });
  assert.deepEqual(c.last, [46, 7, 0, t + 60_000], 'the newer position held stays the latest');
});

test('a network accuses only when three other users taught it and its stays lie within 2 km', () => {
  let p: ApPlace | undefined;
  const teach = (user: string, lat = 45) => { p = withWitness([(p?.[0] ?? 0) + 1, (p?.[1] ?? 0) + lat, (p?.[2] ?? 0) + 7, (p?.[3] ?? 0) + 1], p, lat, 7, userTag(user)); };
  teach('a'); teach('b');
  assert.equal(mayAccuse(p, userTag('z')), false, 'two users');
  teach('c');
  assert.equal(mayAccuse(p, userTag('z')), true, 'three others');
  assert.equal(mayAccuse(p, userTag('a')), false, 'for a, two others');
  teach('d');
  assert.equal(mayAccuse(p, userTag('a')), true, 'a fourth witness: three others for a');
  teach('e', 45 + 3_000 / M);
  assert.equal(mayAccuse(p, userTag('z')), false, 'stays 3 km apart: it moves');
  assert.equal(mayAccuse([1, 45, 7, 10], userTag('z')), false, 'learned before the witnesses: never');
});

test('each network heard is looked up once, lower case, in hearing order, the first 256 of them; those far away that three others taught accuse', () => {
  const bssid = (k: number) => `aa:bb:cc:00:${(k >> 8).toString(16).padStart(2, '0')}:${(k & 255).toString(16).padStart(2, '0')}`;
  // Established (three users, 30 km north of where it is heard): every tenth network.
  let p: ApPlace | undefined;
  for (const u of ['a', 'b', 'c']) p = withWitness([(p?.[0] ?? 0) + 1, (p?.[1] ?? 0) + 45.3, (p?.[2] ?? 0) + 7, (p?.[3] ?? 0) + 1], p, 45.3, 7, userTag(u));
  const established = (b: string) => parseInt(b.slice(-2), 16) % 10 === 0;
  for (const n of [30, 255, 300, 600]) {
    // Upper case on odd signals: the same networks as the tables key them. Every signal joined network 1, which also its first scan heard.
    const signals = Array.from({ length: Math.ceil(n / 3) }, (_, s) => ({
      ...at(s, 45, 7),
      active_wifi: { bssid: s % 2 ? bssid(1).toUpperCase() : bssid(1) },
      wifi_scan: [0, 1, 2].map((j) => ({ bssid: s % 2 ? bssid(s * 3 + j).toUpperCase() : bssid(s * 3 + j), strength: -50 - j })),
    }));
    const asked: string[] = [];
    const c = checkSignals({
      signals, previous: undefined, now: Date.UTC(2024, 5, 2), self: userTag('z'),
      places: (bs) => { asked.push(...bs); return bs.map((b) => (established(b) ? p : undefined)); },
    });
    const heard = [...new Set([bssid(1), ...signals.flatMap((_, s) => [0, 1, 2].map((j) => bssid(s * 3 + j)))])].slice(0, 256);
    assert.deepEqual(asked, heard, `${n} networks: each once, the first 256`);
    const checked = new Set(heard);
    const flagged = signals.map((_, s) => ([0, 1, 2].some((j) => checked.has(bssid(s * 3 + j)) && established(bssid(s * 3 + j))) ? 1 : 0));
    assert.deepEqual(Array.from(c.bits, (b) => (b & WIFI_MISMATCH ? 1 : 0)), flagged, `${n} networks: flagged where a checked, established network was heard`);
  }
});

test('detection takes what the checks heard: a BSSID as sent gives their lower case and place; one past the first 256, or never heard, is read', () => {
  const bssid = (k: number) => `aa:bb:cc:00:${(k >> 8).toString(16).padStart(2, '0')}:${(k & 255).toString(16).padStart(2, '0')}`;
  const place = (b: string): ApPlace => [1, parseInt(b.slice(-2), 16), 7, 1];
  // 300 networks, upper case on odd signals.
  const signals = Array.from({ length: 100 }, (_, s) => ({
    ...at(s, 45, 7),
    wifi_scan: [0, 1, 2].map((j) => ({ bssid: s % 2 ? bssid(s * 3 + j).toUpperCase() : bssid(s * 3 + j), strength: -50 - j })),
  }));
  const heard = checkSignals({ signals, previous: undefined, now: Date.UTC(2024, 5, 2), self: 0, places: (bs) => bs.map(place) }).heard!;
  assert.equal(lowerOf(heard, bssid(5).toUpperCase()), bssid(5));
  assert.equal(lowerOf(heard, bssid(280).toUpperCase()), bssid(280), 'past the bound: lower-cased anew');
  const read: string[][] = [];
  const ask = (bs: readonly string[]) => { read.push([...bs]); return bs.map(place); };
  const never = 'ff:ff:ff:ff:ff:ff';
  assert.deepEqual(placesOf(heard, [bssid(5), '', bssid(280), never], ask), [place(bssid(5)), undefined, place(bssid(280)), place(never)]);
  assert.deepEqual(read, [[bssid(280), never]], 'only what the checks did not read, in one call');
  assert.deepEqual(placesOf(undefined, [bssid(5)], ask), [place(bssid(5))], 'no checks: all read');
});

test('one network sent in 600 spellings is one network and crowds out none of 256 others; a later request\'s checks leave an earlier one\'s answers right', () => {
  const bssid = (k: number) => `aa:bb:cc:00:${(k >> 8).toString(16).padStart(2, '0')}:${(k & 255).toString(16).padStart(2, '0')}`;
  // Every case mix of a–f in 'ab:cd:ef:ab:cd:ef' (12 letters: 4,096 of them), the first 600.
  const spell = (k: number) => [...'ab:cd:ef:ab:cd:ef'].map((ch, i) => (ch !== ':' && (k >> (i - Math.floor(i / 3))) & 1 ? ch.toUpperCase() : ch)).join('');
  const spellings = new Set(Array.from({ length: 600 }, (_, k) => spell(k)));
  assert.equal(spellings.size, 600);
  const signals = [...spellings].map((b, s) => ({ ...at(s, 45, 7), active_wifi: { bssid: b }, ...(s < 255 ? { wifi_scan: [{ bssid: bssid(s), strength: -50 }] } : {}) }));
  const asked: string[] = [];
  const c = checkSignals({ signals, previous: undefined, now: Date.UTC(2024, 5, 2), self: 0, places: (bs) => { asked.push(...bs); return bs.map(() => undefined); } });
  assert.deepEqual(asked, ['ab:cd:ef:ab:cd:ef', ...Array.from({ length: 255 }, (_, s) => bssid(s))], 'the spellings are one network; all 255 others are looked up');
  assert.equal(lowerOf(c.heard, spell(599)), 'ab:cd:ef:ab:cd:ef');
  // Another request's checks take the thread's network table: the first request's detection still gets its own answers.
  const other = checkSignals({ signals: [{ ...at(0, 45, 7), wifi_scan: [{ bssid: bssid(7).toUpperCase(), strength: -50 }] }], previous: undefined, now: Date.UTC(2024, 5, 2), self: 0, places: (bs) => bs.map(() => [1, 1, 1, 1] as ApPlace) });
  assert.equal(lowerOf(other.heard, bssid(7).toUpperCase()), bssid(7));
  assert.equal(lowerOf(c.heard, bssid(7).toUpperCase()), bssid(7));
  const read: string[][] = [];
  assert.deepEqual(placesOf(c.heard, [bssid(7)], (bs) => { read.push([...bs]); return bs.map(() => undefined); }), [undefined], 'its own place (none), not the later request\'s');
  assert.deepEqual(read, [[bssid(7)]], 'read again, since the table has moved on');
});

test('a BSSID whose lower case is not ASCII case folding (a Kelvin sign for k) is still one network with its lower case', () => {
  const signals = ['00:00:00:00:00:k1', '00:00:00:00:00:\u212A1', '00:00:00:00:00:k1'].map((b, s) => ({ ...at(s, 45, 7), active_wifi: { bssid: b } }));
  const asked: string[] = [];
  checkSignals({ signals, previous: undefined, now: Date.UTC(2024, 5, 2), self: 0, places: (bs) => { asked.push(...bs); return bs.map(() => undefined); } });
  assert.deepEqual(asked, ['00:00:00:00:00:k1']);
});

test('wifi_mismatch at 5 km: a network placed 4.95 km away (east or north) does not flag, 5.05 km does', () => {
  const self = userTag('z');
  const placed = (lat: number, long: number) => {
    let p: ApPlace | undefined;
    for (const u of ['a', 'b', 'c']) p = withWitness([(p?.[0] ?? 0) + 1, (p?.[1] ?? 0) + lat, (p?.[2] ?? 0) + long, (p?.[3] ?? 0) + 1], p, lat, long, userTag(u));
    return p!;
  };
  const east = (m: number) => m / (M * Math.cos((45 * Math.PI) / 180));
  for (const [lat, long, flagged] of [[45, 7 + east(4_950), 0], [45, 7 + east(5_050), 1], [45 + 4_950 / M, 7, 0], [45 + 5_050 / M, 7, 1]] as const) {
    const c = checkSignals({ signals: [{ ...at(0, 45, 7), wifi_scan: [{ bssid: 'aa:00:00:00:00:01', strength: -50 }] }], previous: undefined, now: Date.UTC(2024, 5, 2), self, places: () => [placed(lat, long)] });
    assert.equal(c.bits[0] & WIFI_MISMATCH ? 1 : 0, flagged, `${lat}, ${long}`);
  }
});
