/**
 * Realistic structured detection requests (contract §2) around real Monaco venues, from a seeded
 * RNG: a visit, a walk, a second visit, each of 10 fixes with GPS and a Wi-Fi scan of 5 to 10
 * access points (each venue has its own stable set of access points, as in life).
 */
import { rng, type Rng } from './rng.js';
import { M_PER_DEG, mPerDegLon } from '../../src/geo/distance.js';

export interface Place { name: string; lat: number; long: number }

/** Well-known places of Monaco (approximate OpenStreetMap positions). */
export const MONACO_PLACES: readonly Place[] = [
  { name: 'Casino de Monte-Carlo', lat: 43.73976, long: 7.42766 },
  { name: 'Hôtel de Paris', lat: 43.73905, long: 7.42700 },
  { name: 'Café de Paris', lat: 43.73960, long: 7.42835 },
  { name: 'Musée Océanographique', lat: 43.73070, long: 7.42540 },
  { name: 'Palais Princier', lat: 43.73140, long: 7.41980 },
  { name: 'Cathédrale de Monaco', lat: 43.73020, long: 7.42300 },
  { name: 'Gare de Monaco', lat: 43.73860, long: 7.42050 },
  { name: 'Marché de la Condamine', lat: 43.73530, long: 7.42060 },
  { name: 'Port Hercule', lat: 43.73500, long: 7.42300 },
  { name: 'Centre commercial Le Métropole', lat: 43.74000, long: 7.42600 },
  { name: 'Grimaldi Forum', lat: 43.74370, long: 7.43170 },
  { name: 'Jardin Japonais', lat: 43.74400, long: 7.43300 },
  { name: 'Plage du Larvotto', lat: 43.74600, long: 7.43500 },
  { name: 'Jardin Exotique', lat: 43.73120, long: 7.41320 },
  { name: 'Monte-Carlo Bay', lat: 43.74910, long: 7.43880 },
];

export interface RequestOptions {
  /** Distinct users the requests come from. */
  users?: number;
  /** Fixes per event. */
  fixesPerEvent?: number;
  offset?: string;
}

const hex2 = (n: number) => n.toString(16).padStart(2, '0');
const bssidOf = (r: Rng) => Array.from({ length: 6 }, (_, i) => hex2(i === 0 ? (r.int(0, 255) & 0xfc) | 0x02 : r.int(0, 255))).join(':');

interface AccessPoint { ssid: string; bssid: string; rssi: number }

/** Each place has 12 stable access points, the same on every run. */
const placeAPs: AccessPoint[][] = MONACO_PLACES.map((p, i) => {
  const r = rng(0xa11ce + i);
  const base = p.name.replace(/[^A-Za-z]/g, '').slice(0, 10) || 'Place';
  return Array.from({ length: 12 }, (_, k) => ({ ssid: k < 4 ? `${base}-Guest` : `${base}-${k}`, bssid: bssidOf(r), rssi: r.int(-85, -45) }));
});

/** ISO-8601 with the given offset (e.g. "+02:00") for an instant in ms. */
export function isoWithOffset(ms: number, offset: string): string {
  const sign = offset[0] === '-' ? -1 : 1;
  const [hh, mm] = offset.slice(1).split(':').map(Number);
  const local = new Date(ms + sign * (hh * 60 + mm) * 60_000);
  return local.toISOString().slice(0, 19) + offset;
}


function scanAround(r: Rng, aps: AccessPoint[], count: number) {
  const chosen = new Set<number>();
  while (chosen.size < Math.min(count, aps.length)) chosen.add(r.int(0, aps.length - 1));
  return [...chosen].map((k) => ({
    ssid: aps[k].ssid,
    bssid: r.chance(0.5) ? aps[k].bssid.toUpperCase() : aps[k].bssid,
    strength: Math.min(0, Math.round(aps[k].rssi + r.gauss() * 4)),
    age: r.int(0, 8000),
  }));
}

function streetScan(r: Rng, count: number) {
  return Array.from({ length: count }, () => ({ ssid: r.chance(0.3) ? '' : `Box-${r.int(1000, 9999)}`, bssid: bssidOf(r), strength: r.int(-92, -60), age: r.int(0, 15000) }));
}

/**
 * Request number `i` (distinct `request_id` per i) for the given seed: the same (seed, i) gives
 * the same request. Events: visit at one place, transit on foot, visit at another.
 */
export function structuredRequest(seed: number, i: number, opts: RequestOptions = {}): Record<string, unknown> {
  const r = rng((seed * 2654435761 + i * 40503) >>> 0);
  const users = opts.users ?? 500;
  const n = opts.fixesPerEvent ?? 10;
  const offset = opts.offset ?? '+02:00';
  const user = i % users;
  const a = r.int(0, MONACO_PLACES.length - 1);
  let b = r.int(0, MONACO_PLACES.length - 2);
  if (b >= a) b++;
  const A = MONACO_PLACES[a];
  const B = MONACO_PLACES[b];
  // A morning in May 2024, a different day per request so a user's history grows.
  const t0 = Date.UTC(2024, 4, 1, 6, 0, 0) + (i % 90) * 86_400_000 + r.int(0, 10 * 3600) * 1000;
  const visitMin = r.int(20, 45);
  const walkMin = r.int(8, 15);

  const stay = (place: Place, aps: AccessPoint[], start: number, minutes: number) => {
    const jitterM = r.float(8, 25);
    return Array.from({ length: n }, (_, k) => {
      const t = start + Math.round(((k + 0.5) * minutes * 60_000) / n);
      const dy = r.gauss() * jitterM;
      const dx = r.gauss() * jitterM;
      const signal: Record<string, unknown> = {
        timestamp: isoWithOffset(t, offset),
        location: {
          lat: +(place.lat + dy / M_PER_DEG).toFixed(6),
          long: +(place.long + dx / mPerDegLon(place.lat)).toFixed(6),
          accuracy: r.int(5, 40),
          speed: r.chance(0.2) ? -1 : +r.float(0, 0.6).toFixed(2),
          altitude: +r.float(5, 60).toFixed(1),
        },
        wifi_scan: scanAround(r, aps, r.int(5, 10)),
      };
      if (r.chance(0.4)) {
        const ap = aps[r.int(0, 3)];
        signal.active_wifi = { ssid: ap.ssid, bssid: ap.bssid, strength: Math.min(0, ap.rssi + r.int(-3, 3)) };
      }
      return signal;
    });
  };

  const walk = (start: number, minutes: number) =>
    Array.from({ length: n }, (_, k) => {
      const f = (k + 0.5) / n;
      const t = start + Math.round(f * minutes * 60_000);
      return {
        timestamp: isoWithOffset(t, offset),
        location: {
          lat: +(A.lat + (B.lat - A.lat) * f + (r.gauss() * 10) / M_PER_DEG).toFixed(6),
          long: +(A.long + (B.long - A.long) * f + (r.gauss() * 10) / mPerDegLon(A.lat)).toFixed(6),
          accuracy: r.int(4, 15),
          speed: +r.float(1.0, 1.7).toFixed(2),
        },
        wifi_scan: streetScan(r, r.int(5, 10)),
      };
    });

  const s1 = t0;
  const e1 = s1 + visitMin * 60_000;
  const e2 = e1 + walkMin * 60_000;
  const e3 = e2 + r.int(20, 60) * 60_000;
  return {
    request_id: `bench-${seed}-${i}`,
    advertising_id: `bench-ad-${seed}-${user}`,
    user_id: `bench-user-${user}`,
    sdk_version: '3.4.1',
    hosting_app: 'com.example.bench',
    os: user % 3 === 0 ? 'iOS' : 'Android',
    os_version: user % 3 === 0 ? '17.4' : '14',
    device_model: user % 3 === 0 ? 'iPhone15,2' : 'SM-S911B',
    device_brand: user % 3 === 0 ? 'Apple' : 'samsung',
    gender: (['M', 'F', 'O'] as const)[user % 3],
    yob: 1960 + (user % 45),
    custom_data: { cohort: `c${user % 7}` },
    events: [
      { event_id: `${i}-1`, type: 'visit', start_time: isoWithOffset(s1, offset), end_time: isoWithOffset(e1, offset), data: stay(A, placeAPs[a], s1, visitMin) },
      { event_id: `${i}-2`, type: 'transit', start_time: isoWithOffset(e1, offset), end_time: isoWithOffset(e2, offset), data: walk(e1, walkMin) },
      { event_id: `${i}-3`, type: 'visit', start_time: isoWithOffset(e2, offset), end_time: isoWithOffset(e3, offset), data: stay(B, placeAPs[b], e2, (e3 - e2) / 60_000) },
    ],
  };
}
