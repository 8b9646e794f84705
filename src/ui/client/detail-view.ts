/**
 * One detection in the detail panel: its visits, and for the one open, the ranked candidates
 * with each factor's contribution as a bar (green raises the score, red lowers it; the bars of a
 * candidate add up to its score). A recorded detection lists what Dwell answered then; its
 * factors come from explaining the same request now.
 */
import { accuracyLayer, collection, fixesOf, fixesLayer, pointsLayer } from './geo.js';
import type { MapView } from './map-view.js';
import { flagsBadge, integrityPanel } from './integrity-view.js';

export interface Shown {
  title: string;
  request: any;
  /** What Dwell answered (`data`, and the geofence, place and region events), for a recorded detection. */
  answer: { data: any[]; geofence_events?: any[]; place_events?: any[]; region_events?: any[] } | null;
  /** POST /admin/apps/<key>/explain's answer, or null when it failed. */
  explanation: { data: any[]; rankings: any[]; integrity?: any[] } | null;
  note?: string;
}

const el = (tag: string, attrs: Record<string, string> = {}, ...children: Array<Node | string>) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
};
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : String(x));

function factorBars(c: any, scale: number): HTMLElement {
  const grid = el('div', { class: 'factors', 'data-score': String(c.score) });
  for (const f of c.factors) {
    const width = Math.min(50, (Math.abs(f.value) / scale) * 50);
    const bar = el('div', { class: 'bar' }, el('span', { class: f.value >= 0 ? 'pos' : 'neg', style: `width:${width}%` }));
    grid.append(el('span', { class: 'factor', 'data-factor': f.factor, 'data-value': String(f.value) }, f.factor.replace(/_/g, ' ')), bar, el('span', { class: 'num' }, f2(f.value)));
  }
  grid.append(el('strong', {}, 'score'), el('span'), el('strong', { class: 'num score' }, f2(c.score)));
  return grid;
}

export function showDetection(root: HTMLElement, view: MapView, s: Shown): void {
  const items: any[] = (s.answer ?? s.explanation)?.data ?? [];
  let open = Math.max(0, items.findIndex((d) => d.visit?.place?.estimated_geolocation));
  const fixes = fixesOf(s.request);
  view.set('fixes', fixesLayer(fixes));
  view.set('accuracy', accuracyLayer(fixes));

  const render = () => {
    const item = items[open];
    const ranking = s.explanation?.rankings?.[open] ?? null;
    const explained = new Map<string, any>((ranking?.candidates ?? []).map((c: any) => [c.id, c]));
    const answered: any[] = item?.visit?.place?.venues ?? [];
    // Listed: what was answered (a recorded detection), or what the explanation ranks.
    const rows: any[] = s.answer ? answered.map((v) => ({ ...v, ...(explained.get(v.id) ? { explained: explained.get(v.id) } : {}) })) : (ranking?.candidates ?? []).map((c: any) => ({ ...c, explained: c }));
    const scale = Math.max(1e-9, ...rows.flatMap((r) => (r.explained?.factors ?? []).map((f: any) => Math.abs(f.value))));
    const table = el('table', { class: 'candidates' }, el('tr', {}, el('th', {}, '#'), el('th', {}, 'venue'), el('th', {}, 'probability'), el('th', {}, 'factors (nats)')));
    rows.forEach((r, i) => {
      const tr = el('tr', { class: `candidate${i === 0 ? ' best' : ''}`, 'data-id': r.id, 'data-probability': String(r.probability) },
        el('td', {}, String(i + 1)),
        el('td', {}, el('strong', {}, r.name || r.id), el('br'), el('span', { class: 'note' }, `${r.category} / ${r.sub_category}${r.explained ? ` · ${Math.round(r.explained.distance_m)} m, footprint ${Math.round(r.explained.footprint_m)} m` : ''}`)),
        el('td', { class: 'num' }, (r.probability * 100).toFixed(2) + ' %'),
        el('td', {}, r.explained ? factorBars(r.explained, scale) : el('span', { class: 'note' }, 'not among the candidates ranked now')));
      table.append(tr);
    });
    const visits = el('div', { class: 'visits' }, ...items.map((d, k) => {
      const b = el('button', { type: 'button', class: k === open ? 'open' : '' }, `${d.event_id ?? `visit ${k + 1}`}: ${d.visit?.event_type === 'transit' ? 'transit' : d.visit?.place?.venue_info?.name || d.visit?.place_id || 'no venue'} `, flagsBadge(d.visit?.integrity));
      b.addEventListener('click', () => { open = k; render(); });
      return b;
    }));
    const facts = ranking ? el('p', { class: 'note' }, `centre ±${f2(ranking.centre.sigma_m)} m · dwell ${Math.round(ranking.dwell_s / 60)} min · hour of week ${ranking.hour_of_week} · indoor ${ranking.indoor === null ? 'unknown' : f2(ranking.indoor)} · ${ranking.scored} venues scored · none of these ${(ranking.none.probability * 100).toFixed(2)} % (score ${f2(ranking.none.score)}) · p ∝ exp(score / ${ranking.temperature})`) : '';
    root.replaceChildren(el('h2', {}, s.title), ...(s.note ? [el('p', { class: 'note' }, s.note)] : []), visits, facts,
      item?.visit?.place?.estimated_geolocation ? table : el('p', { class: 'note' }, item?.visit?.event_type === 'transit' ? 'A transit: no place.' : 'No located visit.'),
      integrityPanel(s.request, item, s.explanation?.integrity, s.answer));

    const geo = item?.visit?.place?.estimated_geolocation;
    view.set('centre', geo ? pointsLayer([{ lat: geo.lat, long: geo.long }]) : collection());
    const best = rows[0]?.id;
    view.set('candidates', pointsLayer((ranking?.candidates ?? []).map((c: any) => ({ lat: c.lat, long: c.long, id: c.id, name: c.name, category: c.category, probability: c.probability, best: c.id === best, selected: false }))));
    // The open visit's own fixes when the request has events; all of a stream's.
    const event = Array.isArray(s.request?.events) ? s.request.events.find((e: any) => e?.event_id === item?.event_id) : undefined;
    const pts: Array<[number, number]> = (event ? fixesOf({ data: event.data }) : fixes).map((f) => [f.long, f.lat]);
    for (const c of ranking?.candidates ?? []) pts.push([c.long, c.lat]);
    view.fit(pts);
  };
  render();
}
