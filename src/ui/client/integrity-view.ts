/**
 * Contract §12 in the detail panel: the open visit's integrity, what each flag of the request
 * rests on (the explanation's `integrity`: the two positions and the speed of a jump, the network
 * and where it was learned for a mismatch, …), and the geofence, place and region events Dwell
 * answered, each with its own integrity.
 */
const el = (tag: string, attrs: Record<string, string> = {}, ...children: Array<Node | string>) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
};
const km = (m: number) => `${(m / 1000).toFixed(1)} km`;
const ll = (p: { lat: number; long: number }) => `${p.lat.toFixed(5)}, ${p.long.toFixed(5)}`;

/** The event id (structured) each signal index of the request belongs to. */
function eventOfSignal(request: any): (i: number) => string {
  const owners: string[] = [];
  if (Array.isArray(request?.events)) for (const e of request.events) for (const _ of e?.data ?? []) owners.push(String(e.event_id));
  return (i) => (i < 0 ? 'held from before' : owners[i] ?? `signal ${i}`);
}

export function flagsBadge(integrity: any): HTMLElement {
  if (!integrity) return el('span', { class: 'note' }, 'not checked');
  if (integrity.passed) return el('span', { class: 'passed', 'data-passed': 'true' }, 'passed');
  return el('span', { class: 'flagged', 'data-passed': 'false' }, ...integrity.flags.map((f: string) => el('span', { class: 'flag', 'data-flag': f }, f)));
}

function why(e: any, where: (i: number) => string): string {
  const pos = (p: any) => `${ll(p)} ±${Math.round(p.accuracy)} m at ${p.timestamp} (${where(p.signal)})`;
  switch (e.flag) {
    case 'jumped': return `${pos(e.from)} → ${pos(e.to)}: ${km(e.distance_m)} in ${e.seconds} s, ${e.speed_m_s === null ? 'at once' : `${e.speed_m_s} m/s beyond the accuracies`}`;
    case 'wifi_mismatch': return `network ${e.bssid}, learned at ${ll(e.learned_at)} from ${e.learned_at.stays} stays of ${e.learned_at.users} users, is ${km(e.distance_m)} from the position ${pos(e.position)}`;
    case 'clock_skew': return `${e.timestamp} is ${e.ahead_s} s after the server's clock (${where(e.signal)})`;
    default: return `${pos(e.position)}`;
  }
}

/** The request's integrity evidence (from an explanation) and, for a recorded detection, its events as answered. */
export function integrityPanel(request: any, item: any, evidence: any[] | undefined, answer: any): HTMLElement {
  const where = eventOfSignal(request);
  const list = el('ul', { id: 'integrity-evidence', class: 'list' }, ...(evidence ?? []).map((e) => el('li', { 'data-flag': e.flag }, el('strong', {}, e.flag), ' ', why(e, where))));
  const out = el('section', { class: 'integrity' }, el('h3', {}, 'Integrity'), el('p', {}, 'This visit: ', flagsBadge(item?.visit?.integrity)),
    evidence === undefined ? el('p', { class: 'note' }, 'No explanation: the evidence is not known.') : evidence.length ? list : el('p', { class: 'note' }, 'Nothing in the request is flagged (explained now).'));
  const events = [['geofence', answer?.geofence_events], ['place', answer?.place_events], ['region', answer?.region_events]]
    .flatMap(([kind, l]) => (Array.isArray(l) ? l.map((e: any) => ({ kind, e })) : []));
  if (answer) {
    const rows = events.map(({ kind, e }) => el('tr', { class: 'event', 'data-kind': String(kind), 'data-type': String(e.type) },
      el('td', {}, String(kind)), el('td', {}, String(e.type)),
      el('td', {}, kind === 'geofence' ? `${e.tag ?? ''} ${e.geofence_id}` : kind === 'place' ? `${e.venue?.name} (trigger ${e.trigger_id})` : `${e.name} (${e.code})`),
      el('td', {}, String(e.timestamp)), el('td', {}, flagsBadge(e.integrity))));
    out.append(el('h3', {}, 'Geofence, place and region events (as answered)'),
      rows.length ? el('table', { id: 'events' }, el('tr', {}, el('th', {}, 'kind'), el('th', {}, 'event'), el('th', {}, 'of'), el('th', {}, 'at'), el('th', {}, 'integrity')), ...rows) : el('p', { class: 'note' }, 'None.'));
  }
  return out;
}
