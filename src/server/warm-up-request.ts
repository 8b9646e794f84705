/**
 * The warm-up's requests (warm-up.ts), shaped as devices send them (issue 44). V8 optimises the
 * detection code for the objects it has met: the maps of the parsed JSON (which keys, in which
 * order, integer or fractional numbers) and of what detection builds from it (a fused centre only
 * when a network heard was learned before, a transit between visits, a user's history). The
 * former warm-up sent one shape (three events, eight fixes, three networks, every fix scanned,
 * times on the minute), and in one thread the first 1,000 New York requests after 600 of them
 * still cost 55 deoptimisations and 150 optimisations, 1.71–1.75 ms a request against 1.18–1.25
 * after 600 real requests (the vdsim set, under another app): the first 10 s of a soak at
 * 300 req/s, 14 % over 50 ms. So these vary as devices do: 1 to 10 events, mostly visits, some
 * transit; 1 to 40 fixes a visit at irregular seconds; fixes with and without scans, a joined
 * network with and without a scan; accuracy, speed and altitude to a decimal (some whole, as
 * JSON.parse then makes small integers), speed -1 from iOS; optional fields present or not, in
 * the interface's order; access points that belong to venues and streets, so other devices hear
 * them again; devices that come back; some unstructured uploads and beacon scans.
 *
 * Synthetic throughout, from the served store's venues only: a node warms on any store.
 */

import { mulberry32, normalFrom } from '../seeded.js';

/** A venue of the served store the warm-up visits (venues/store.ts samplePositions). */
export interface WarmUpPlace { lat: number; lon: number; name?: string }

/** Devices the requests come from: request k is device k mod DEVICES's, so each comes back. */
const DEVICES = 48;
const DAY_MS = 86_400_000;
const M_PER_DEG = 111_320;
/** The contract's largest scan the warm-up sends (devices send up to 20 on the vdsim sets). */
const MAX_SCAN = 20;

const hash = (...xs: number[]): number => xs.reduce((h, x) => Math.imul(h ^ (x | 0), 0x01000193) >>> 0, 0x811c9dc5);
const hex = (n: number, digits: number) => (n >>> 0).toString(16).padStart(digits, '0').slice(-digits);
const tenth = (x: number) => Math.round(x * 10) / 10;
const pick = <T>(u: () => number, xs: readonly T[]): T => xs[Math.floor(u() * xs.length)];

/** `t` (ms) as a device's local time at `offsetMin` minutes from UTC: 2026-11-24T05:25:29-05:00. */
function localTime(t: number, offsetMin: number): string {
  const sign = offsetMin < 0 ? '-' : '+', m = Math.abs(offsetMin);
  return new Date(t + offsetMin * 60_000).toISOString().slice(0, 19) + `${sign}${String(m / 60 | 0).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

interface Device {
  ad: boolean; user: boolean; gender?: string; yob?: number; custom: boolean;
  ios: boolean; osVersion: string; model: string; brand: string; sdk: string;
  scanRate: number; joinRate: number; beacons: boolean; unstructured: boolean;
  /** Index of its first favourite venue; the next few (Hilbert order: nearby) are the others. */
  home: number;
}

function device(d: number, places: number): Device {
  const u = mulberry32(hash(d, 0xde71ce));
  const id = u(), ios = u() < 0.45;
  return {
    ad: id < 0.84, user: id >= 0.6, gender: u() < 0.48 ? pick(u, ['M', 'F', 'O']) : undefined, yob: u() < 0.52 ? 1950 + Math.floor(u() * 55) : undefined, custom: u() < 0.28,
    ios, osVersion: ios ? pick(u, ['16.7', '17.4', '17.5.1', '18.1']) : pick(u, ['12', '13', '14', '15']),
    model: ios ? pick(u, ['iPhone14,5', 'iPhone15,2', 'iPhone16,1']) : pick(u, ['SM-A546B', 'Pixel 8', 'moto g54']), brand: ios ? 'Apple' : pick(u, ['samsung', 'Google', 'motorola']),
    sdk: pick(u, ['3.2.1', '3.3.0', '3.4.2']), scanRate: 0.3 + 0.6 * u(), joinRate: 0.2 + 0.5 * u(), beacons: d % 6 === 5, unstructured: d % 8 === 3,
    home: Math.floor(u() * places),
  };
}

/** A venue's own access points (0 to 3), the same for every device: some named after the venue, as shops' are. */
function venueAps(v: number, place: WarmUpPlace): Array<{ ssid: string; bssid: string }> {
  const h = hash(v, 0xa9);
  return Array.from({ length: h % 4 }, (_, i) => ({
    ssid: place.name && (h >> 4) % 2 ? (i === 0 ? `${place.name} WiFi` : `Guest-${place.name.split(' ')[0]}`) : routerName(hash(v, i)),
    bssid: bssid(hash(v, i, 0x77)),
  }));
}

/** Homes' and offices' networks of a ~100 m cell, heard by whoever passes. */
function streetAps(lat: number, lon: number): Array<{ ssid: string; bssid: string }> {
  const cx = Math.floor(lat * 1000), cy = Math.floor(lon * 1000), h = hash(cx, cy);
  return Array.from({ length: 2 + (h % 7) }, (_, i) => ({ ssid: routerName(hash(cx, cy, i)), bssid: bssid(hash(cx, cy, i, 0x5e)) }));
}

const routerName = (h: number) => `${['ATT', 'FiOS-', 'Verizon_', 'NETGEAR', 'Linksys', 'HOME-', 'DIRECT-', 'MySpectrumWiFi'][h % 8]}${hex(h >> 8, 2 + ((h >> 3) % 3)).toUpperCase()}`;
const bssid = (h: number) => [h & 0xfe | 0x02, h >> 8, h >> 16, h >> 24, hash(h, 1), hash(h, 2)].map((x) => hex(x & 0xff, 2)).join(':');

/** What one signal carries beyond its fix, in the order devices send it. */
function heard(u: () => number, dev: Device, lat: number, lon: number, own: Array<{ ssid: string; bssid: string }>, joined: boolean, scan: boolean) {
  const out: Record<string, unknown> = {};
  if (scan) {
    const aps = [...own.map((ap) => ({ ...ap, strength: -45 - Math.floor(u() * 30) })), ...streetAps(lat, lon).filter(() => u() < 0.7).map((ap) => ({ ...ap, strength: -62 - Math.floor(u() * 30) }))];
    if (aps.length) out.wifi_scan = aps.slice(0, MAX_SCAN).map((ap) => ({ ssid: ap.ssid, bssid: ap.bssid, strength: ap.strength, age: Math.floor(u() * 25_000) }));
  }
  if (joined && own.length) out.active_wifi = { ssid: own[0].ssid, bssid: own[0].bssid, strength: -40 - Math.floor(u() * 20) };
  if (dev.beacons && u() < 0.8) out.beacon_scan = [{ uuid: 'f7826da6-4fa2-4e98-8024-bc5b71e0893e', major: hash(lat * 1e4, lon * 1e4) & 0xffff, minor: Math.floor(u() * 65_536), rssi: -60 - Math.floor(u() * 30), tx_power: -59, age: Math.floor(u() * 10_000) }];
  return out;
}

/** A fix near (lat, lon): GPS error of a phone indoors, now and then a multipath jump or a coarse network fix. */
function location(u: () => number, dev: Device, lat: number, lon: number, speed: number) {
  const coarse = u() < 0.03, jump = u() < 0.04;
  const sigma = coarse ? 150 + u() * 1000 : jump ? 80 + u() * 320 : 7 + u() * 15;
  const dLat = (normalFrom(u) * sigma) / M_PER_DEG, dLon = (normalFrom(u) * sigma) / (M_PER_DEG * Math.cos((lat * Math.PI) / 180));
  return {
    lat: +(lat + dLat).toFixed(6), long: +(lon + dLon).toFixed(6), accuracy: tenth(coarse ? sigma : (7 + u() * 15) * 1.5),
    speed: dev.ios && u() < 0.12 ? -1 : speed, altitude: tenth(12 + normalFrom(u) * 5),
  };
}

interface Span { events: Array<Record<string, unknown>>; end: number }

/** Request k: device k mod DEVICES's (k / DEVICES)-th, a day after its last; `wifi` false: anonymous, Wi-Fi and beacons left out. */
export function warmUpRequest(k: number, places: readonly WarmUpPlace[], now: number, wifi: boolean): Record<string, unknown> {
  const d = k % DEVICES, dev = device(d, places.length), u = mulberry32(hash(k, 0x5eed));
  const favourite = () => (u() < 0.8 ? (dev.home + Math.floor(u() * 6)) % places.length : Math.floor(u() * places.length));
  const offsetMin = Math.max(-12, Math.min(14, Math.round(places[dev.home].lon / 15))) * 60;
  const iso = (t: number) => localTime(t, offsetMin);
  const nEvents = pick(u, [1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 4, 4, 5, 6, 7, 8, 9, 10]);
  const span: Span = { events: [], end: Math.floor((now - 365 * DAY_MS + Math.floor(k / DEVICES) * DAY_MS + u() * DAY_MS / 2) / 1000) * 1000 };
  let at = favourite();
  for (let i = 0; i < nEvents; i++) {
    const next = i > 0 && u() < 0.2 ? favourite() : -1;
    if (next >= 0) { transit(span, u, dev, places[at], places[next], iso, wifi); at = next; }
    else { if (i > 0) at = favourite(); visit(span, u, dev, at, places[at], iso, wifi); }
  }
  const events = span.events;
  return {
    request_id: `warm-up-${k}`,
    ...(wifi && dev.ad ? { advertising_id: `${hex(hash(d, 1), 8)}-${hex(hash(d, 2), 4)}-4${hex(hash(d, 3), 3)}-8${hex(hash(d, 4), 3)}-${hex(hash(d, 5), 8)}${hex(d, 4)}` } : {}),
    ...(wifi && dev.user ? { user_id: `warm-up-${d}` } : {}),
    sdk_version: dev.sdk, hosting_app: 'dwell.warm-up', os: dev.ios ? 'iOS' : 'Android', os_version: dev.osVersion, device_model: dev.model, device_brand: dev.brand,
    ...(dev.gender ? { gender: dev.gender } : {}),
    ...(dev.yob ? { yob: dev.yob } : {}),
    ...(dev.custom ? { custom_data: { segment: 'warm-up', opt_in: true } } : {}),
    ...(dev.unstructured ? { data: events.flatMap((e) => e.data as unknown[]) } : { events }),
  };
}

/** A stay at venue `v`: fixes every 1 to 5 minutes at irregular seconds, at most 40; scanned on the device's share, the venue's network joined on some visits. */
function visit(span: Span, u: () => number, dev: Device, v: number, p: WarmUpPlace, iso: (t: number) => string, wifi: boolean): void {
  const start = span.end + (u() < 0.3 ? 0 : Math.floor(u() * 3600) * 1000);
  const minutes = Math.min(240, Math.max(3, Math.exp(Math.log(25) + 0.8 * normalFrom(u))));
  const end = start + Math.floor(minutes * 60) * 1000;
  const own = venueAps(v, p), joined = u() < dev.joinRate;
  const data: unknown[] = [];
  for (let t = start + (10 + Math.floor(u() * 250)) * 1000; t < end && data.length < 40; t += (60 + Math.floor(u() * 240)) * 1000) {
    const speed = u() < 0.12 ? 0 : Math.round(u() * 10) / 100;
    data.push({ timestamp: iso(t), location: location(u, dev, p.lat, p.lon, speed), ...(wifi ? heard(u, dev, p.lat, p.lon, own, joined, u() < dev.scanRate) : {}) });
  }
  if (!data.length) data.push({ timestamp: iso(start), location: location(u, dev, p.lat, p.lon, 0) });
  span.events.push({ event_id: `ev-${span.events.length}`, type: 'visit', start_time: iso(start), end_time: iso(end), data });
  span.end = end;
}

/** On the way from `a` to `b`: a fix every 30 to 60 s at walking to driving speed, scans of the streets' networks on half. */
function transit(span: Span, u: () => number, dev: Device, a: WarmUpPlace, b: WarmUpPlace, iso: (t: number) => string, wifi: boolean): void {
  const start = span.end, metres = Math.hypot(b.lat - a.lat, (b.lon - a.lon) * Math.cos((a.lat * Math.PI) / 180)) * M_PER_DEG;
  const speed = Math.round((1.2 + u() * 12) * 100) / 100;
  const n = Math.max(3, Math.min(100, Math.round(metres / speed / 45)));
  const data: unknown[] = [];
  let t = start;
  for (let j = 0; j < n; j++) {
    t += (30 + Math.floor(u() * 30)) * 1000;
    const f = (j + 0.5) / n, lat = a.lat + (b.lat - a.lat) * f, lon = a.lon + (b.lon - a.lon) * f;
    data.push({ timestamp: iso(t), location: location(u, dev, lat, lon, speed), ...(wifi ? heard(u, dev, lat, lon, [], false, u() < 0.5) : {}) });
  }
  span.events.push({ event_id: `ev-${span.events.length}`, type: 'transit', start_time: iso(start), end_time: iso(t + 1000), data });
  span.end = t + 1000;
}
