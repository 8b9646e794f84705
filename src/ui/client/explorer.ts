/**
 * The explorer page (issue 19): log in with the admin token, choose an app, open one of its
 * recent detections or explain a pasted or uploaded request, see the app's geofences, search
 * the venue store; the app's place triggers listed. `window.dwellExplorer` lets the browser tests see the map.
 */
import { api, ApiError, setToken, token } from './api.js';
import { collection, fenceFeature, pointsLayer } from './geo.js';
import { mapView, type MapView } from './map-view.js';
import { showDetection } from './detail-view.js';

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const status = (text: string) => { $('status').textContent = text; };
let view: MapView | null = null;
let app = '';

async function fail(err: unknown): Promise<void> {
  if (err instanceof ApiError && err.status === 401) { setToken(null); location.reload(); return; }
  status(String((err as Error)?.message ?? err));
}

async function loadApps(): Promise<void> {
  const { apps } = await api<{ apps: Array<{ app_key: string; name: string }> }>('/admin/apps');
  const select = $<HTMLSelectElement>('apps');
  select.replaceChildren(...apps.map((a) => Object.assign(document.createElement('option'), { value: a.app_key, textContent: `${a.name} (${a.app_key})` })));
  const remembered = sessionStorage.getItem('dwell-app');
  if (remembered && apps.some((a) => a.app_key === remembered)) select.value = remembered;
  await chooseApp(select.value);
}

async function chooseApp(key: string): Promise<void> {
  app = key;
  sessionStorage.setItem('dwell-app', key);
  if (!key) return;
  await Promise.all([loadRecent(), loadFences(), loadPlaceTriggers()]);
}

/** The app's place triggers (contract §11), read-only: what its place events come from. */
async function loadPlaceTriggers(): Promise<void> {
  const r = await api(`/admin/apps/${encodeURIComponent(app)}/place-triggers`);
  $('place-triggers-note').textContent = r.place_triggers.length ? '' : 'None.';
  $('place-triggers').replaceChildren(...r.place_triggers.map((t: any) => {
    const li = Object.assign(document.createElement('li'), { textContent: `${t.tag ?? t.id} · ${[t.brand ? `brand ${t.brand}` : '', t.type_id ? `type ${t.type_id}` : ''].filter(Boolean).join(', ')} · ${t.radius ? `${t.radius} m` : "each venue's radius"}${t.dwell ? ` · dwell ${t.dwell} s` : ''}` });
    li.dataset.id = t.id;
    return li;
  }));
}

async function loadRecent(): Promise<void> {
  const r = await api(`/admin/apps/${encodeURIComponent(app)}/recent?limit=200`);
  $('recent-note').textContent = r.kept ? `${r.count} kept (newest first)` : 'This app\'s detections are not kept (DWELL_RECENT_OPT_OUT or DWELL_RECENT_COUNT=0).';
  $('recent').replaceChildren(...r.detections.map((d: any) => {
    const li = Object.assign(document.createElement('li'), { textContent: `${d.at.replace('T', ' ').slice(0, 19)} · ${d.user ?? 'no user'} · ${d.kind} · ${d.tally.venue} venue, ${d.tally.no_venue} none, ${d.tally.transit} transit` });
    li.dataset.id = d.id;
    li.addEventListener('click', () => { for (const o of document.querySelectorAll('#recent li.open')) o.classList.remove('open'); li.classList.add('open'); openRecent(d.id).catch(fail); });
    return li;
  }));
}

async function loadFences(): Promise<void> {
  const show = $<HTMLInputElement>('show-fences').checked;
  const r = show ? await api(`/admin/apps/${encodeURIComponent(app)}/geofences?limit=10000`) : { geofences: [] };
  view?.set('fences', collection(r.geofences.map(fenceFeature).filter(Boolean)));
}

async function explain(request: unknown): Promise<any> {
  return api(`/admin/apps/${encodeURIComponent(app)}/explain`, { method: 'POST', body: JSON.stringify(request) });
}

async function openRecent(id: string): Promise<void> {
  status('loading…');
  const d = await api(`/admin/apps/${encodeURIComponent(app)}/recent/${encodeURIComponent(id)}`);
  let explanation = null, note = 'Listed: what Dwell answered at the time. Factors: the same request explained now (the user\'s history may have grown since).';
  try { explanation = await explain(d.request); } catch (err) { note = `Could not explain it now: ${(err as Error).message}`; }
  showDetection($('detail'), view!, { title: `Detection of ${d.at}`, request: d.request, answer: d.answer, explanation, note });
  await shown();
}

async function explainPasted(): Promise<void> {
  let request: unknown;
  try { request = JSON.parse($<HTMLTextAreaElement>('request').value); } catch (err) { status(`Not JSON: ${(err as Error).message}`); return; }
  status('explaining…');
  const explanation = await explain(request);
  showDetection($('detail'), view!, { title: 'Explained request', request, answer: null, explanation });
  await shown();
}

async function searchVenues(): Promise<void> {
  const c = view!.centre();
  const q = new URLSearchParams({ q: $<HTMLInputElement>('venue-q').value, lat: String(c.lat), long: String(c.long), radius: '2000', limit: '100' });
  const r = await api(`/admin/venues?${q}`);
  view!.set('venues', pointsLayer(r.venues));
  $('venues').replaceChildren(...r.venues.map((v: any) => {
    const li = Object.assign(document.createElement('li'), { textContent: `${v.name || v.id} · ${v.sub_category || v.category}${v.distance_m !== undefined ? ` · ${v.distance_m} m` : ''}` });
    li.addEventListener('click', () => view!.map.jumpTo({ center: [v.long, v.lat], zoom: 18 }));
    return li;
  }));
  status(`${r.venues.length} venues`);
}

async function shown(): Promise<void> {
  await view!.idle();
  status('');
  document.body.dataset.drawn = String(Number(document.body.dataset.drawn ?? 0) + 1);
}

async function start(): Promise<void> {
  $('login').hidden = true;
  $('shell').hidden = false;
  const tiles = document.querySelector<HTMLMetaElement>('meta[name="dwell-tiles"]')?.content ?? '';
  view = await mapView($('map'), tiles.startsWith('{{') ? '' : tiles);
  (window as any).dwellExplorer = { view };
  await loadApps();
  document.body.dataset.ready = 'true';
}

$('login').addEventListener('submit', (e) => {
  e.preventDefault();
  setToken($<HTMLInputElement>('token').value);
  api('/admin/apps').then(() => start(), (err) => { setToken(null); $('login-error').textContent = err instanceof ApiError && err.status === 401 ? 'That token is not valid.' : String(err.message); });
});
$('logout').addEventListener('click', () => { setToken(null); location.reload(); });
$('apps').addEventListener('change', (e) => chooseApp((e.target as HTMLSelectElement).value).catch(fail));
$('refresh').addEventListener('click', () => loadRecent().catch(fail));
$('show-fences').addEventListener('change', () => loadFences().catch(fail));
$('explain').addEventListener('click', () => explainPasted().catch(fail));
$('venue-search').addEventListener('click', () => searchVenues().catch(fail));
$('venue-q').addEventListener('keydown', (e) => { if ((e as KeyboardEvent).key === 'Enter') searchVenues().catch(fail); });
$('upload').addEventListener('change', async (e) => {
  const file = (e.target as HTMLInputElement).files?.[0];
  if (file) { $<HTMLTextAreaElement>('request').value = await file.text(); await explainPasted().catch(fail); }
});
if (token()) start().catch(fail);
