/**
 * Wi-Fi evidence. Two sources: network names that echo the venue's name or brand ("Starbucks WiFi",
 * "Guest-Metropole"), and access points learned from earlier confident visits of the app's users
 * (a BSSID heard at a venue is heard there again). A phone joins a venue's own network far more
 * often than a neighbour's, so the joined network weighs more than one merely heard in a scan.
 */
import type { Signal } from '../../schemas/detect-request.js';
import type { Venue } from '../venue.js';
import type { WifiHeard } from '../../users/stored.js';
import type { PooledAp } from '../../learned/shapes.js';
import { cacheEntries } from '../../cache-budget.js';
import { lowerAt, type Heard } from '../../integrity/heard.js';

export type { WifiHeard } from '../../users/stored.js';

const TOP = new Int32Array(16);
/** Entries a signal in Checks.picks (integrity/check.ts SCAN_STRONGEST). */
const PICKS = 3;

/**
 * Heard networks of an event: every joined network and the few strongest of each scan. `picks`:
 * each scan's strongest three as the checks chose them (integrity/check.ts Checks.picks, the same
 * choice), from the event's first signal at `from`: not chosen again. `heard`: the checks' networks
 * (of the same signals, from `from`), whose lower-cased BSSIDs are taken rather than made again
 * (integrity/heard.ts).
 */
export function wifiOf(signals: readonly Signal[], maxScanPerSignal = 3, max = 16, picks?: Int32Array, from = 0, heard?: Heard): WifiHeard[] {
  const byKey = new Map<string, WifiHeard>();
  // `net`: the network's index in heard.bssids, where the checks said it (heard.ts joined, picked).
  const add = (ssid: string | undefined, bssid: string | undefined, strength: number | undefined, active: boolean, net = -1) => {
    const b = bssid ? lowerAt(heard, net, bssid) : '';
    const key = b || `ssid:${ssid ?? ''}`;
    if (!b && !ssid) return;
    const s = strength ?? (active ? -60 : -85);
    const had = byKey.get(key);
    if (had) { had.active ||= active; if (s > had.strength) had.strength = s; return; }
    if (byKey.size < max) byKey.set(key, { key, ssid: ssid ?? '', bssid: b, strength: s, active });
  };
  for (let i = 0; i < signals.length; i++) {
    const a = signals[i].active_wifi;
    if (a) add(a.ssid, a.bssid, a.strength, true, heard ? heard.joined[from + i] : -1);
  }
  const picked = picks !== undefined && maxScanPerSignal === PICKS;
  for (let i = 0; i < signals.length; i++) {
    const scan = signals[i].wifi_scan;
    if (!scan || scan.length === 0) continue;
    if (picked) {
      for (let j = 0, at = (from + i) * PICKS; j < PICKS && picks[at + j] >= 0; j++) { const e = scan[picks[at + j]]; add(e.ssid, e.bssid, e.strength, false, heard ? heard.picked[at + j] : -1); }
      continue;
    }
    // Scans come strongest first from most SDKs, but nothing promises it: pick the strongest
    // few in place (no copy, no sort of the whole scan).
    if (scan.length <= maxScanPerSignal) { for (const e of scan) add(e.ssid, e.bssid, e.strength, false); continue; }
    const k = Math.min(maxScanPerSignal, TOP.length);
    let m = 0;
    for (let i = 0; i < scan.length; i++) {
      const st = scan[i].strength ?? -100;
      if (m < k) { TOP[m++] = i; } else if (st > (scan[TOP[m - 1]].strength ?? -100)) { TOP[m - 1] = i; } else continue;
      for (let j = m - 1; j > 0 && (scan[TOP[j]].strength ?? -100) > (scan[TOP[j - 1]].strength ?? -100); j--) { const x = TOP[j]; TOP[j] = TOP[j - 1]; TOP[j - 1] = x; }
    }
    for (let j = 0; j < m; j++) { const e = scan[TOP[j]]; add(e.ssid, e.bssid, e.strength, false); }
  }
  return [...byKey.values()];
}

const GENERIC = new Set(['wifi', 'wi', 'fi', 'guest', 'guests', 'free', 'customer', 'customers', 'public', 'hotspot',
  'wlan', 'internet', 'open', 'net', 'the', 'le', 'la', 'les', 'de', 'du', 'des', 'and', 'et']);

/** Lower-case ASCII words, accents and punctuation removed. */
export function words(s: string): string[] {
  return s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 0);
}
const squash = (ws: string[]) => ws.join('');

/** Name keys by venue id, SSID keys by SSID: half of the Wi-Fi share of DWELL_CACHE_MB each. */
const WIFI_KEYS_MAX = Math.max(1024, cacheEntries('wifiKeys') >> 1);
const nameCache = new Map<string, string[]>();
function nameKeys(v: Venue): string[] {
  let keys = nameCache.get(v.id);
  if (!keys) {
    keys = [];
    for (const n of [v.name, v.brand]) {
      if (!n) continue;
      const ws = words(n);
      if (ws.length) keys.push(squash(ws));
    }
    if (nameCache.size >= WIFI_KEYS_MAX) nameCache.clear();
    nameCache.set(v.id, keys);
  }
  return keys;
}

// ssidLog asks for every heard network against every candidate (16 × 40 an event): the SSID's
// words are worked out once, not per candidate (a third of a request's detection time before).
const ssidCache = new Map<string, string>();
function ssidKey(ssid: string): string {
  let s = ssidCache.get(ssid);
  if (s === undefined) {
    s = squash(words(ssid).filter((w) => !GENERIC.has(w)));
    if (ssidCache.size >= WIFI_KEYS_MAX) ssidCache.clear();
    ssidCache.set(ssid, s);
  }
  return s;
}

/**
 * How strongly an SSID's key names the venue (its `nameKeys`): 0 none; 1 the SSID is the venue's
 * first word only (weak: "Guest-Hotel" fits every hotel); 2 the SSID spells the name or brand.
 * Every test below needs the first characters equal (no key is empty), so that is asked first:
 * ssidLog runs this for every heard name against every candidate, and most pairs differ there.
 */
function keyMatch(s: string, names: readonly string[]): number {
  if (s.length < 3) return 0;
  const first = s.charCodeAt(0);
  let best = 0;
  for (let k = 0; k < names.length; k++) {
    const name = names[k];
    if (name.charCodeAt(0) !== first) continue;
    if (name === s || (s.length >= 6 && name.startsWith(s)) || (name.length >= 6 && s.startsWith(name))) return 2;
    if (name.startsWith(s)) best = 1;
  }
  return best;
}

/** The networks whose names can speak for a venue, as `ssidLog` reads them: [name key, weight, …]. */
export type SsidEvidence = Array<string | number>;

/**
 * Worked out once per stay, not once per candidate (16 heard × 32 candidates an event). Only a
 * network the phone joined, or one heard as if from the same room, speaks for the venue: a
 * scanned one may be next door, and on simulated data fainter names more often belonged to the
 * neighbours. A joined network is the venue's own, so it weighs more.
 */
export function ssidEvidence(heard: readonly WifiHeard[]): SsidEvidence {
  const out: SsidEvidence = [];
  for (const h of heard) {
    if (!h.ssid || (!h.active && h.strength < -65)) continue;
    const key = ssidKey(h.ssid);
    if (key.length >= 3) out.push(key, h.active ? 4.0 : 1.5);
  }
  return out;
}

/** Log likelihood ratio of the venue from network names heard at the event (`ssidEvidence`). */
export function ssidLog(evidence: SsidEvidence, v: Venue): number {
  if (evidence.length === 0 || (!v.name && !v.brand)) return 0;
  const names = nameKeys(v);
  let total = 0;
  for (let i = 0; i < evidence.length; i += 2) {
    const m = keyMatch(evidence[i] as string, names);
    if (m === 0) continue;
    const base = evidence[i + 1] as number;
    total = Math.max(total, m === 2 ? base : base * 0.3);
  }
  return total;
}

/**
 * Pooled evidence of a joined network. A phone joins a venue's own network, so every confirmed
 * stay that joined one BSSID was at one and the same venue: their GPS likelihoods multiply. Each
 * such stay adds its candidates' GPS log likelihoods (relative to its best, the best few); a
 * venue missing from a stay's list gets POOL_FLOOR for it. Summed over n stays, the evidence
 * pins the venue down as n independent visits would (the centre's error shrinks like 1/sqrt n).
 */
export type { PooledAp } from '../../learned/shapes.js';
export const POOL_FLOOR = -4;
const POOL_CAP = -10;

/** The best pooled score of an access point (the reference its venues are measured against). */
export function pooledBest(p: PooledAp): number {
  let best = p.n * POOL_FLOOR;
  for (const id in p.v) { const [sum, m] = p.v[id]; const s = sum + (p.n - m) * POOL_FLOOR; if (s > best) best = s; }
  return best;
}

/** Log likelihood (≤ 0) of the venue from the stays pooled under one joined network. */
export function pooledLog(p: PooledAp, best: number, venueId: string): number {
  const e = p.v[venueId];
  const s = e ? e[0] + (p.n - e[1]) * POOL_FLOOR : p.n * POOL_FLOOR;
  return Math.max(POOL_CAP, s - best);
}
