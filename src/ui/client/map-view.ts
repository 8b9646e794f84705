/**
 * The map: MapLibre GL JS with Dwell's own GeoJSON layers (geofences, fixes with their accuracy
 * circles, the stay's centre, the candidates sized by probability, venue search results) over
 * an optional raster base map (DWELL_UI_TILES); without one, a plain background.
 */
import { bounds, collection, type Collection } from './geo.js';

export const COLOURS = { fix: '#1c7ed6', candidate: '#f76707', best: '#d9480f', centre: '#7048e8', fence: '#c2255c', venue: '#2b8a3e', background: '#f2efe9' };

const SOURCES = ['fences', 'accuracy', 'fixes', 'centre', 'candidates', 'venues'] as const;
export type Layer = (typeof SOURCES)[number];

export interface MapView {
  map: any;
  set(layer: Layer, data: Collection): void;
  /** Fits the view to these [lon, lat] points. */
  fit(points: Array<[number, number]>): void;
  centre(): { lat: number; long: number };
  /** Resolves once the map has drawn everything it was given. */
  idle(): Promise<void>;
}

export async function mapView(container: HTMLElement, tiles: string): Promise<MapView> {
  const url = '/ui/maplibre-gl.mjs';
  const ml: any = await import(url);
  const sources: Record<string, unknown> = {};
  const layers: unknown[] = [{ id: 'background', type: 'background', paint: { 'background-color': COLOURS.background } }];
  if (tiles) {
    sources.base = { type: 'raster', tiles: [tiles], tileSize: 256, attribution: 'Base map: see DWELL_UI_TILES' };
    layers.push({ id: 'base', type: 'raster', source: 'base' });
  }
  for (const s of SOURCES) sources[s] = { type: 'geojson', data: collection() };
  layers.push(
    { id: 'fences-fill', type: 'fill', source: 'fences', paint: { 'fill-color': COLOURS.fence, 'fill-opacity': 0.08 } },
    { id: 'fences-line', type: 'line', source: 'fences', paint: { 'line-color': COLOURS.fence, 'line-width': 1.5, 'line-dasharray': [2, 2] } },
    { id: 'accuracy', type: 'fill', source: 'accuracy', paint: { 'fill-color': COLOURS.fix, 'fill-opacity': 0.06, 'fill-outline-color': COLOURS.fix } },
    { id: 'venues', type: 'circle', source: 'venues', paint: { 'circle-radius': 5, 'circle-color': COLOURS.venue, 'circle-stroke-width': 1, 'circle-stroke-color': '#fff' } },
    { id: 'candidates', type: 'circle', source: 'candidates', paint: {
      'circle-radius': ['+', 4, ['*', 14, ['sqrt', ['get', 'probability']]]],
      'circle-color': ['case', ['get', 'best'], COLOURS.best, COLOURS.candidate], 'circle-opacity': 0.85,
      'circle-stroke-width': ['case', ['get', 'selected'], 3, 1], 'circle-stroke-color': '#000',
    } },
    { id: 'fixes', type: 'circle', source: 'fixes', paint: { 'circle-radius': 5, 'circle-color': COLOURS.fix, 'circle-stroke-width': 1, 'circle-stroke-color': '#fff' } },
    { id: 'centre', type: 'circle', source: 'centre', paint: { 'circle-radius': 7, 'circle-color': COLOURS.centre, 'circle-stroke-width': 2, 'circle-stroke-color': '#fff' } },
  );
  const map = new ml.Map({
    container, style: { version: 8, sources, layers }, center: [7.4246, 43.7384], zoom: 14,
    attributionControl: tiles ? {} : false, preserveDrawingBuffer: true, fadeDuration: 0,
  });
  map.addControl(new ml.NavigationControl({ showCompass: false }));
  map.addControl(new ml.ScaleControl({ unit: 'metric' }));
  await new Promise<void>((resolve) => map.once('load', () => resolve()));
  const popup = new ml.Popup({ closeButton: false, closeOnClick: false });
  for (const layer of ['candidates', 'venues', 'fences-fill']) {
    map.on('mousemove', layer, (e: any) => {
      const p = e.features?.[0]?.properties ?? {};
      popup.setLngLat(e.lngLat).setText(p.name ? `${p.name} (${p.category ?? ''})` : p.tag || p.id || '').addTo(map);
    });
    map.on('mouseleave', layer, () => popup.remove());
  }
  return {
    map,
    set: (layer, data) => map.getSource(layer).setData(data),
    fit(points) {
      const b = bounds(points);
      if (!b) return;
      if (b[0][0] === b[1][0] && b[0][1] === b[1][1]) map.jumpTo({ center: b[0], zoom: 17 });
      else map.fitBounds(b, { padding: 60, maxZoom: 18, duration: 0 });
    },
    centre: () => { const c = map.getCenter(); return { lat: c.lat, long: c.lng }; },
    idle: () => new Promise<void>((resolve) => { map.once('idle', () => resolve()); map.triggerRepaint(); }),
  };
}
