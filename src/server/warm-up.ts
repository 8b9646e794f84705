/**
 * Warming the detection workers before /readyz says ready (issue 21). A node that had just
 * started or joined served its first minute with 10–12 % of detections over 50 ms: each worker
 * loaded its modules and the offline gazetteer inside its first requests, ran the detection code
 * unoptimised, and read the venue store's pages for the first time.
 *
 * Warm-up requests are ordinary detection tasks: a visit, a walk and a second visit with Wi-Fi
 * scans at venues spread over the served store (Hilbert order, so evenly spaced record indexes
 * are spread in space). They run against a scratch data directory, so no app's users or learned
 * tables see them; a last round of anonymous requests without Wi-Fi (which write nothing) opens
 * the real data directory's stores in every worker.
 */
import { gzipSync } from 'node:zlib';
import type { StoreHandle } from '../venues/store.js';
import type { DetectTask } from '../pipeline/task.js';
import type { TaskApp } from '../schemas/app.js';
import { clock } from '../time/clock.js';

/** An app key no app can have (keys are issued by the registry): warm-up state is never an app's. */
export const WARM_UP_APP = 'dwell:warm-up';

const M_PER_DEG = 111_320;

/** `t` (ms) as a device's local time at `offsetMin` minutes from UTC: 2026-11-24T05:25:29-05:00. */
function localTime(t: number, offsetMin: number): string {
  const sign = offsetMin < 0 ? '-' : '+', m = Math.abs(offsetMin);
  return new Date(t + offsetMin * 60_000).toISOString().slice(0, 19) + `${sign}${String(m / 60 | 0).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

/** A structured request around venue `a` then `b`; `wifi`: scans and a joined network at each venue. */
function request(k: number, a: { lat: number; lon: number }, b: { lat: number; lon: number }, now: number, wifi: boolean): unknown {
  const bssid = (venue: number, ap: number) => `02:${[venue >> 16, venue >> 8, venue, ap, k & 0xff].map((x) => (x & 0xff).toString(16).padStart(2, '0')).join(':')}`;
  const t0 = now - 3 * 3600_000 + (k % 60) * 60_000;
  // Shaped as devices send them (the vdsim sets): local times with the zone's offset, altitude,
  // scan ages, device fields, so their parsing and validation are warmed too. In one thread the
  // first 1,000 New York requests took 0.7–0.9 ms each after none or 300 synthetic detections,
  // 0.5 after 2,000 other real requests (issue 21): real traffic still reaches code these miss.
  const offsetMin = Math.max(-12, Math.min(14, Math.round(a.lon / 15))) * 60;
  const iso = (t: number) => localTime(t, offsetMin);
  const fix = (lat: number, lon: number, t: number, venue: number) => ({
    timestamp: iso(t),
    location: { lat: +lat.toFixed(6), long: +lon.toFixed(6), accuracy: 10 + (t / 1000) % 30, speed: 0.1, altitude: 10 + (t / 1000) % 7 },
    ...(wifi ? { wifi_scan: [0, 1, 2].map((ap) => ({ ssid: `warm-up ${venue % 97}`, bssid: bssid(venue, ap), strength: -50 - ap * 9, age: 1000 + ap * 2500 })) } : {}),
    ...(wifi && venue % 2 ? { active_wifi: { ssid: `warm-up ${venue % 97}`, bssid: bssid(venue, 0), strength: -48 } } : {}),
  });
  const stay = (p: { lat: number; lon: number }, start: number, venue: number) =>
    Array.from({ length: 8 }, (_, j) => fix(p.lat + ((j % 3) - 1) * 8 / M_PER_DEG, p.lon + ((j % 2) - 0.5) * 10 / (M_PER_DEG * Math.cos(p.lat * Math.PI / 180)), start + j * 150_000 + 1000, venue));
  const walk = (start: number) => Array.from({ length: 6 }, (_, j) => {
    const f = (j + 0.5) / 6;
    return { timestamp: iso(start + j * 60_000 + 1000), location: { lat: +(a.lat + (b.lat - a.lat) * f).toFixed(6), long: +(a.lon + (b.lon - a.lon) * f).toFixed(6), accuracy: 8, speed: 1.3 } };
  });
  const e1 = t0 + 20 * 60_000, e2 = e1 + 6 * 60_000, e3 = e2 + 20 * 60_000;
  return {
    request_id: `warm-up-${k}`,
    ...(wifi ? { advertising_id: `00000000-0000-4000-8000-${k.toString(16).padStart(12, '0')}` } : {}),
    ...(wifi && k % 3 === 0 ? { user_id: `warm-up-${k}`, custom_data: { warm_up: true } } : {}),
    ...(k % 2 ? { yob: 1980 + (k % 30), gender: k % 4 === 1 ? 'F' : 'M' } : {}),
    sdk_version: '3.4.2', hosting_app: 'dwell.warm-up', os: k % 2 ? 'Android' : 'iOS', os_version: '14', device_model: 'warm-up', device_brand: 'warm-up',
    events: [
      { event_id: 'v1', type: 'visit', start_time: iso(t0), end_time: iso(e1), data: stay(a, t0, 2 * k) },
      { event_id: 't1', type: 'transit', start_time: iso(e1), end_time: iso(e2), data: walk(e1) },
      { event_id: 'v2', type: 'visit', start_time: iso(e2), end_time: iso(e3), data: stay(b, e2, 2 * k + 1) },
    ],
  };
}

/**
 * `count` detection tasks for warming from the `from`-th: with Wi-Fi and users on `dir` (a
 * scratch directory), or anonymous without Wi-Fi (which write nothing) when `wifi` is false.
 */
export function warmUpTasks(store: StoreHandle, places: ReadonlyArray<{ lat: number; lon: number }>, dir: string, from: number, count: number, wifi: boolean, now = clock.now()): DetectTask[] {
  if (places.length === 0) return [];
  const app: TaskApp = { app_key: WARM_UP_APP, confirm_dwell_s: 300, integrity: 'flag', region_events: false };
  return Array.from({ length: count }, (_, i) => {
    const k = from + i;
    const a = places[k % places.length], b = places[(k * 7 + 3) % places.length];
    return { body: gzipSync(JSON.stringify(request(k, a, b, now, wifi))), gzip: true, sync: true, app, store, dataDir: dir, now };
  });
}
