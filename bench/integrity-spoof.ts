/**
 * bench:integrity's spoofers and what it knows independently of Dwell (bench/integrity.ts).
 *
 * The model. A spoofer is a user of the set who comes after the honest traffic (under a new id),
 * sending their requests altered one way:
 * - `teleport`: a mock-location app switched on mid-visit. Every other visit (structured: a visit
 *   event; stream: a request) keeps its first fix real and moves the rest D km at a random
 *   bearing, D log-uniform in [100, 3000] km: a jump no traveller makes, minutes apart within one
 *   request. Whether a spoofed visit IS a jump is decided by contract §12's rule applied here, to
 *   what was sent (consecutive positions > 10 km apart after accuracies, faster than 300 m/s):
 *   those that are not (a one-fix visit beside long gaps) are counted apart, not as misses.
 * - `mocked`: every fix says `mocked: true`.
 * - `wifi`: every position moved 40 km north, transits included (so no jump gives it away), the
 *   networks heard left as they are. Dwell can catch it only through a network it has established
 *   (§12 and integrity.md: at least three other users' confident stays, within 2 km): `Networks`
 *   says, from the honest run's answers, which networks were, so spoofed visits that hear none
 *   (a network nobody else uses, or no network) are reported apart as undetectable by construction.
 */
import { createHash } from 'node:crypto';
import { rng, type Rng } from './lib/rng.js';

export type Kind = 'teleport' | 'mocked' | 'wifi';
export const KINDS: Kind[] = ['teleport', 'mocked', 'wifi'];
export const EXPECTED: Record<Kind, string> = { teleport: 'jumped', mocked: 'mocked', wifi: 'wifi_mismatch' };
export interface Loc { lat: number; long: number; accuracy?: number; mocked?: boolean }
export interface Signal { timestamp: string; location?: Loc; active_wifi?: { bssid?: string; strength?: number }; wifi_scan?: Array<{ bssid?: string; strength?: number }> }
export interface Event { event_id: string; type: string; data: Signal[] }
export interface Body { advertising_id?: string; user_id?: string; events?: Event[]; data?: Signal[] }

const KM_DEG = 111.195;
const t = (s: Signal) => Date.parse(s.timestamp);

/** The spoof kind of a user, or null for one left honest: a share of users by hash, kinds in turn. */
export function kindOf(user: string, share: number, seed: string): Kind | null {
  const h = createHash('sha256').update(`${seed}:${user}`).digest();
  return h.readUInt32BE(0) / 2 ** 32 < share ? KINDS[h[4] % KINDS.length] : null;
}

function moved(l: Loc, km: number, bearing: number): Loc {
  const lat = Math.max(-85, Math.min(85, l.lat + (km * Math.cos(bearing)) / KM_DEG));
  let long = l.long + (km * Math.sin(bearing)) / (KM_DEG * Math.cos((l.lat * Math.PI) / 180));
  long = ((long + 540) % 360) - 180;
  return { ...l, lat, long };
}

/** A teleport: the first located fix (by time) kept, the others moved D km at one bearing. */
function teleport(signals: Signal[], r: Rng): Signal[] {
  const located = signals.filter((s) => s.location).sort((a, b) => t(a) - t(b));
  const km = 100 * 30 ** r.next(), bearing = r.float(0, 2 * Math.PI);
  const keep = located.length > 1 ? located[0] : undefined;
  return signals.map((s) => (s.location && s !== keep ? { ...s, location: moved(s.location, km, bearing) } : s));
}

const alter = (signals: Signal[], kind: Kind, r: Rng): Signal[] => kind === 'teleport' ? teleport(signals, r)
  : signals.map((s) => !s.location ? s : { ...s, location: kind === 'mocked' ? { ...s.location, mocked: true } : moved(s.location, 40, 0) });

/** A spoofer: their bodies altered (a new id), and which were: event ids, or for a stream the moved time ranges. */
export class Spoofer {
  private turn = 0;
  private readonly r: Rng;
  readonly events = new Set<string>();
  readonly ranges: Array<[number, number]> = [];
  constructor(readonly user: string, readonly kind: Kind, seed: string) {
    this.r = rng(createHash('sha256').update(`${seed}:${user}:rng`).digest().readUInt32BE(0));
  }
  private spoofsNext(): boolean { return this.kind !== 'teleport' || this.turn++ % 2 === 1; }

  body(b: Body): Body {
    const id = { ...(b.advertising_id ? { advertising_id: `${b.advertising_id}-spoof` } : {}), ...(b.user_id ? { user_id: `${b.user_id}-spoof` } : {}) };
    if (b.events) {
      const events = b.events.map((e) => {
        if (this.kind === 'wifi') { if (e.type === 'visit') this.events.add(e.event_id); return { ...e, data: alter(e.data, 'wifi', this.r) }; }
        if (e.type !== 'visit' || !this.spoofsNext()) return e;
        this.events.add(e.event_id);
        return { ...e, data: alter(e.data, this.kind, this.r) };
      });
      return { ...b, ...id, events };
    }
    const data = b.data ?? [];
    if (!this.spoofsNext()) return { ...b, ...id };
    const out = alter(data, this.kind, this.r);
    const times = out.filter((s, i) => s.location && s.location !== data[i].location).map(t);
    if (times.length) this.ranges.push([Math.min(...times), Math.max(...times)]);
    return { ...b, ...id, data: out };
  }

  /** Whether a visit answered to this spoofer is one of the spoofed: its event, or its time within a moved range. */
  spoofed(eventId: string | undefined, start: number, end: number): boolean {
    if (eventId !== undefined) return this.events.has(eventId);
    return this.ranges.some(([a, b]) => a <= end && b >= start);
  }
}

/** Contract §12's `jumped`, applied to what a user sent: the signals in a jump pair, request by request. */
export class JumpOracle {
  private last = new Map<string, [number, number, number, number]>();
  /** The signals of this request that are one of a jump pair. */
  jumps(user: string, signals: readonly Signal[]): Set<Signal> {
    const pos = signals.filter((s) => s.location).map((s) => ({ s, p: [s.location!.lat, s.location!.long, s.location!.accuracy ?? 0, t(s)] as [number, number, number, number] }));
    const prev = this.last.get(user);
    const order: Array<{ s?: Signal; p: [number, number, number, number] }> = [...pos, ...(prev ? [{ p: prev }] : [])];
    order.sort((a, b) => a.p[3] - b.p[3]);
    const out = new Set<Signal>();
    for (let k = 1; k < order.length; k++) {
      const a = order[k - 1].p, b = order[k].p;
      const d = haversineKm(a[0], a[1], b[0], b[1]) * 1000 - a[2] - b[2];
      const dt = Math.abs(b[3] - a[3]) / 1000;
      if (d > 10_000 && (dt === 0 || d / dt > 300)) { if (order[k - 1].s) out.add(order[k - 1].s!); if (order[k].s) out.add(order[k].s!); }
    }
    if (order.length) this.last.set(user, order[order.length - 1].p);
    return out;
  }
}

export function haversineKm(a: number, b: number, c: number, d: number): number {
  const r = Math.PI / 180, x = Math.sin(((c - a) * r) / 2), y = Math.sin(((d - b) * r) / 2);
  return 2 * 6371.0088 * Math.asin(Math.sqrt(x * x + Math.cos(a * r) * Math.cos(c * r) * y * y));
}

/** The networks §12 checks of some signals: the joined ones and each scan's three strongest (integrity/check.ts), lower case. */
export function checkedNetworks(signals: readonly Signal[]): string[] {
  const out = new Set<string>();
  for (const s of signals) if (s.active_wifi?.bssid) out.add(s.active_wifi.bssid.toLowerCase());
  for (const s of signals) {
    const scan = [...(s.wifi_scan ?? [])].sort((a, b) => (b.strength ?? -100) - (a.strength ?? -100)).slice(0, 3);
    for (const e of scan) if (e.bssid) out.add(e.bssid.toLowerCase());
  }
  return [...out];
}

/**
 * Which networks the honest traffic established, by the rule as documented (not by reading
 * Dwell): each network heard by a confirmed visit that passed, with the users whose visits heard
 * it and the box of those visits' centres (the mean of their fixes).
 */
export class Networks {
  private users = new Map<string, Set<string>>();
  private box = new Map<string, [number, number, number, number]>();
  taught(user: string, signals: readonly Signal[]): void {
    const located = signals.filter((s) => s.location);
    if (!located.length) return;
    const lat = located.reduce((a, s) => a + s.location!.lat, 0) / located.length, lon = located.reduce((a, s) => a + s.location!.long, 0) / located.length;
    for (const n of checkedNetworks(signals)) {
      const u = this.users.get(n) ?? new Set<string>();
      this.users.set(n, u.add(user));
      const b = this.box.get(n);
      this.box.set(n, b ? [Math.min(b[0], lat), Math.max(b[1], lat), Math.min(b[2], lon), Math.max(b[3], lon)] : [lat, lat, lon, lon]);
    }
  }
  /** Whether `n` is established against `user` (an id of the honest set): three others, stays within 2 km. */
  established(n: string, user: string): boolean {
    const u = this.users.get(n), b = this.box.get(n);
    if (!u || !b || [...u].filter((x) => x !== user).length < 3) return false;
    return haversineKm(b[0], b[2], b[1], b[3]) <= 2;
  }
  /** How a wifi spoof's signals stand: 'detectable' (a network established), 'unshared' (networks, none established), 'none' (no network). */
  reach(signals: readonly Signal[], user: string): 'detectable' | 'unshared' | 'none' {
    const ns = checkedNetworks(signals);
    if (!ns.length) return 'none';
    return ns.some((n) => this.established(n, user)) ? 'detectable' : 'unshared';
  }
}
