/**
 * The home-and-work rule (users/places.ts, contract §2 user_place) on plain data: which stays are
 * nights and working days in the signals' own local time, how they gather into places, and which
 * place becomes home or work.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { datesOf, forgetPlaces, homeAndWork, learnPlaces, learnedPlacesOut, spanOfAnswered, userPlaceAt, type KeptPlace, type StaySpan } from '../src/users/places.js';
import { hourOfWeek } from '../src/time/stamp.js';

const HOME = { lat: 40.7306, lon: -73.9866 };
const OFFICE = { lat: 40.7527, lon: -73.9772 };
/** A stay from `from` to `to`, local times written with their offset. */
const stay = (at: { lat: number; lon: number }, from: string, to: string): StaySpan => {
  const off = /([+-])(\d\d):(\d\d)$/.exec(from)!;
  return { ...at, startMs: Date.parse(from), endMs: Date.parse(to), offsetMin: (off[1] === '-' ? -1 : 1) * (Number(off[2]) * 60 + Number(off[3])) };
};
const night = (day: number, at = HOME) => stay(at, `2024-05-${String(day).padStart(2, '0')}T21:30:00-04:00`, `2024-05-${String(day + 1).padStart(2, '0')}T07:10:00-04:00`);
/** 2024-05-06 was a Monday. */
const workday = (day: number, at = OFFICE) => stay(at, `2024-05-${String(day).padStart(2, '0')}T08:50:00-04:00`, `2024-05-${String(day).padStart(2, '0')}T17:20:00-04:00`);
const learnAll = (spans: StaySpan[]) => { const rec: { up?: KeptPlace[] } = {}; for (const s of spans) learnPlaces(rec, s); return rec.up; };

test('a night is 2 h or more of local 00:00-05:00, in the signals\' own offset', () => {
  assert.deepEqual(datesOf(night(6)).nights.length, 1);
  // 22:00 to 01:30 local: 1.5 h of the night, not enough.
  assert.deepEqual(datesOf(stay(HOME, '2024-05-06T22:00:00-04:00', '2024-05-07T01:30:00-04:00')).nights, []);
  // The same instants seen from UTC+09:00 fall at 11:00-14:30 local: no night.
  const s = stay(HOME, '2024-05-06T22:00:00-04:00', '2024-05-07T03:00:00-04:00');
  assert.equal(datesOf(s).nights.length, 1);
  assert.deepEqual(datesOf({ ...s, offsetMin: 9 * 60 }).nights, []);
});

test('a working day is 2 h or more of 09:00-17:00 on a local Monday to Friday', () => {
  assert.equal(datesOf(workday(6)).days.length, 1, 'Monday');
  assert.equal(datesOf(workday(10)).days.length, 1, 'Friday');
  assert.deepEqual(datesOf(workday(11)).days, [], 'Saturday');
  assert.deepEqual(datesOf(stay(OFFICE, '2024-05-07T12:00:00-04:00', '2024-05-07T13:30:00-04:00')).days, [], 'a lunch');
});

test('home after three distinct nights within 50 m; the same night twice counts once', () => {
  const two = learnAll([night(6), night(7), night(7)]);
  assert.equal(homeAndWork(two).home, null, 'two distinct nights are not yet a home');
  assert.equal(userPlaceAt(two, HOME.lat, HOME.lon), null);
  // The third night's centre lies 20 m off: the same place.
  const three = learnAll([night(6), night(7), night(8, { lat: HOME.lat + 0.00018, lon: HOME.lon })]);
  assert.equal(userPlaceAt(three, HOME.lat, HOME.lon), 'home');
  assert.equal(userPlaceAt(three, HOME.lat + 0.0004, HOME.lon), 'home', '45 m from the first night, within 50 m of the mean');
  assert.equal(userPlaceAt(three, HOME.lat + 0.001, HOME.lon), null, '110 m away');
});

test('work: three weekdays of working hours at a place that is not home', () => {
  const up = learnAll([night(6), night(7), night(8), workday(6), workday(7), workday(8), workday(11)]);
  assert.equal(userPlaceAt(up, OFFICE.lat, OFFICE.lon), 'work');
  assert.equal(userPlaceAt(up, HOME.lat, HOME.lon), 'home');
  // Working from home: working days at home do not make it work.
  const wfh = learnAll([night(6), night(7), night(8), workday(6, HOME), workday(7, HOME), workday(8, HOME)]);
  assert.deepEqual({ home: !!homeAndWork(wfh).home, work: homeAndWork(wfh).work }, { home: true, work: null });
});

test('home is where most nights were spent; places are bounded; the export names them', () => {
  const spans = [night(1), night(2), night(3), night(4), night(10, OFFICE), night(11, OFFICE), night(12, OFFICE)];
  // Nine more one-night places elsewhere: the list stays at 8, and home survives.
  for (let k = 0; k < 9; k++) spans.push(night(20 + (k % 8), { lat: HOME.lat + 0.01 * (k + 1), lon: HOME.lon }));
  const up = learnAll(spans)!;
  assert.equal(up.length, 8);
  assert.equal(userPlaceAt(up, HOME.lat, HOME.lon), 'home');
  assert.equal(userPlaceAt(up, OFFICE.lat, OFFICE.lon), null, 'the other place with nights is neither');
  const out = learnedPlacesOut(up) as { home: { lat: number }; places: Array<{ is: string | null; nights: string[] }> };
  assert.equal(out.home.lat, HOME.lat);
  assert.deepEqual(out.places.find((p) => p.is === 'home')?.nights, ['2024-05-02', '2024-05-03', '2024-05-04', '2024-05-05'], 'a night is dated by its morning');
  assert.deepEqual(learnedPlacesOut(undefined), { home: null, work: null, places: [] });
});

test('a stay that is neither a night nor a working day changes nothing', () => {
  const rec: { up?: KeptPlace[] } = {};
  assert.equal(learnPlaces(rec, stay(HOME, '2024-05-11T12:00:00-04:00', '2024-05-11T18:00:00-04:00')), false);
  assert.equal(rec.up, undefined);
});

test('a night the user says was no stop is taken back, from the answered visit\'s own summary', () => {
  const rec: { up?: KeptPlace[] } = {};
  for (const d of [6, 7, 8]) learnPlaces(rec, night(d));
  assert.equal(userPlaceAt(rec.up, HOME.lat, HOME.lon), 'home');
  // What users/answered.ts keeps of the third night: start, dwell, local hour of the week of its middle.
  const s = night(8), mid = (s.startMs + s.endMs) / 2;
  const span = spanOfAnswered({ i: 'v', s: s.startMs, la: Math.round(HOME.lat * 1e6), lo: Math.round(HOME.lon * 1e6), sg: 10,
    h: hourOfWeek(mid, s.offsetMin), d: (s.endMs - s.startMs) / 1000, o: -1, r: 'X', v: 'X' });
  assert.equal(span.offsetMin, -240, 'the offset, from the local hour against the UTC one');
  forgetPlaces(rec, span);
  assert.equal(userPlaceAt(rec.up, HOME.lat, HOME.lon), null, 'two nights left');
  assert.equal(rec.up?.[0].n.length, 2);
  forgetPlaces(rec, spanOfAnswered({ i: 'w', s: 0, la: 0, lo: 0, sg: 10, h: 0, d: 60, o: -1, r: '', v: '' }));
  assert.equal(rec.up?.length, 1, 'a stay far from every place changes nothing');
});

/** An afternoon at home as the ranking sees it: `home` of its probability on private homes. */
const afternoon = (day: number, home: number, at = HOME, lodging = 0): StaySpan =>
  ({ ...stay(at, `2024-05-${String(day).padStart(2, '0')}T13:00:00-04:00`, `2024-05-${String(day).padStart(2, '0')}T16:00:00-04:00`), home, lodging });

test('a stay the ranking puts among private homes is home from the first one; the café downstairs is not', () => {
  const rec: { up?: KeptPlace[] } = {};
  assert.equal(learnPlaces(rec, afternoon(11, 0.4)), false, 'under half on homes: no residential day');
  assert.equal(learnPlaces(rec, afternoon(11, 0.7)), true);
  assert.deepEqual(rec.up?.[0].r, [datesOf(afternoon(11, 0.7)).res[0]]);
  assert.equal(userPlaceAt(rec.up, HOME.lat, HOME.lon, afternoon(12, 0.6)), 'home', 'another residential stay there');
  assert.equal(userPlaceAt(rec.up, HOME.lat, HOME.lon, night(12)), 'home', 'a night there, whatever its ranking');
  assert.equal(userPlaceAt(rec.up, HOME.lat, HOME.lon, afternoon(12, 0.1)), null, 'an afternoon ranked among shops at the same point');
  assert.equal(userPlaceAt(rec.up, HOME.lat, HOME.lon), 'home', 'by position alone without the visit');
  assert.deepEqual((learnedPlacesOut(rec.up) as { places: Array<{ residential_days: string[] }> }).places[0].residential_days, ['2024-05-11']);
});

test('home is the place lived at most: nights and residential days together', () => {
  // Three nights elsewhere (a partner's, ranked among shops) against four residential afternoons at home.
  const spans = [night(6, OFFICE), night(7, OFFICE), night(8, OFFICE)];
  const up = learnAll([...spans, afternoon(11, 0.8), afternoon(12, 0.8), afternoon(13, 0.8), afternoon(14, 0.8)]);
  assert.equal(homeAndWork(up).home?.la, HOME.lat);
  assert.equal(homeAndWork(learnAll([...spans, afternoon(11, 0.8)])).home?.la, OFFICE.lat, 'one residential day is not three nights');
  // Nights-only homes need three, as before: an old record's places have no `r` and read the same.
  const old: KeptPlace[] = [{ la: HOME.lat, lo: HOME.lon, w: 3, n: [1, 2, 3], d: [], t: 0 }];
  assert.equal(userPlaceAt(old, HOME.lat, HOME.lon, afternoon(12, 0)), 'home', 'a home from nights answers by position');
});

test('a hotel is neither home nor work to its guests; homes are not work', () => {
  const hotelNight = (day: number) => ({ ...night(day, OFFICE), lodging: 0.9 });
  assert.deepEqual(datesOf(hotelNight(6)), { nights: [], days: [], res: [] });
  assert.equal(homeAndWork(learnAll([hotelNight(6), hotelNight(7), hotelNight(8)])).home, null);
  const hotelDay = (day: number) => ({ ...workday(day), lodging: 0.9 });
  assert.equal(homeAndWork(learnAll([hotelDay(6), hotelDay(7), hotelDay(8)])).work, null);
  // Working days at a place ranked among homes (a neighbour's, say): not work.
  const homeDay = (day: number) => ({ ...workday(day), home: 0.9 });
  const up = learnAll([night(1), night(2), night(3), night(4), homeDay(6), homeDay(7), homeDay(8)]);
  assert.equal(homeAndWork(up).work, null);
});

test('a residential stay the user says was no stop is taken back with its date', () => {
  const rec: { up?: KeptPlace[] } = {};
  const s = afternoon(11, 0.9), mid = (s.startMs + s.endMs) / 2;
  learnPlaces(rec, s);
  forgetPlaces(rec, spanOfAnswered({ i: 'v', s: s.startMs, la: Math.round(HOME.lat * 1e6), lo: Math.round(HOME.lon * 1e6), sg: 10,
    h: hourOfWeek(mid, s.offsetMin), d: (s.endMs - s.startMs) / 1000, o: -1, r: 'X', v: 'X' }));
  assert.equal(rec.up?.length, 0, 'the place had nothing else');
});
