/**
 * OSM PBF → venues: named objects tagged amenity/shop/tourism/leisure/office/craft/healthcare.
 * Three passes, because PBF files list nodes, then ways, then relations, and geometry flows the
 * other way: (1) relations that are venues, and the ways they need; (2) ways that are venues or
 * members, and the nodes they need; (3) nodes: node venues are emitted, needed coordinates kept
 * in typed arrays keyed by a sorted id list. Then ways and relations get centroids and radii.
 */
import { streetLine } from '../address.js';
import { osmTagsType } from '../osm-categories.js';
import type { Venue } from '../types.js';
import { NeedSet } from './osm-need.js';
import { round7, shapeOf, type Ring } from './osm-geometry.js';
import { scanPbf, type Tags } from './osm-pbf.js';
import type { Progress } from './report.js';
import { makeVenue } from './venue.js';

interface Pending { id: string; tags: Tags }
type Emit = (v: Venue, line: number | string) => void;

export async function readOsm(file: string, progress: Progress, emit: Emit): Promise<void> {
  // Three passes over the file, so each is a third of the way (nodes, the last, take longest,
  // which makes an early ETA optimistic, and it corrects itself as the pass runs).
  let pass = 0, at = 0, size = 1;
  const read = (pos: number, total: number): void => { at = pos; size = total; };
  progress.track(() => (pass + at / size) / 3);
  const rels: Array<Pending & { ways: Array<{ ref: number; inner: boolean }> }> = [];
  const wantWays = new NeedSet();
  progress.phase = 'relations';
  await scanPbf(file, {
    read,
    relation(id, members, tags) {
      progress.row();
      if (!isVenue(tags)) return;
      const ways = members.filter((m) => m.type === 1).map((m) => ({ ref: m.ref, inner: m.role === 'inner' }));
      for (const w of ways) wantWays.add(w.ref);
      rels.push({ id: `r${id}`, tags, ways });
    },
  });
  wantWays.seal();
  pass = 1; at = 0;

  const ways: Array<Pending & { refs: number[] }> = [];
  const memberRefs = new Map<number, number[]>();
  const wantNodes = new NeedSet();
  progress.phase = 'ways';
  await scanPbf(file, {
    read,
    way(id, refs, tags) {
      progress.row();
      const venue = isVenue(tags);
      if (venue) ways.push({ id: `w${id}`, tags, refs });
      if (wantWays.has(id)) memberRefs.set(id, refs);
      if (venue || wantWays.has(id)) for (const r of refs) wantNodes.add(r);
    },
  });
  wantNodes.seal();
  pass = 2; at = 0;

  const lat = new Float64Array(wantNodes.size).fill(NaN);
  const lon = new Float64Array(wantNodes.size);
  progress.phase = 'nodes';
  await scanPbf(file, {
    read,
    node(id, la, lo, tags) {
      const k = wantNodes.indexOf(id);
      if (k >= 0) { lat[k] = la; lon[k] = lo; }
      if (!tags) return;
      progress.row();
      if (isVenue(tags)) add({ id: `n${id}`, tags }, round7(la), round7(lo), undefined, progress, emit);
    },
  });

  const ring = (refs: number[], inner: boolean): Ring => {
    const r: Ring = { lat: [], lon: [], inner };
    for (const ref of refs) {
      const k = wantNodes.indexOf(ref);
      if (k >= 0 && !Number.isNaN(lat[k])) { r.lat.push(lat[k]); r.lon.push(lon[k]); }
    }
    return r;
  };
  pass = 3; at = 0;
  progress.phase = 'geometry';
  for (const w of ways) {
    const shape = shapeOf([ring(w.refs, false)]);
    if (!shape) { progress.badRow(w.id, `none of its ${w.refs.length} nodes are in the file`); continue; }
    add(w, shape.lat, shape.lon, shape.radius, progress, emit);
  }
  for (const r of rels) {
    const shape = shapeOf(r.ways.map((m) => ring(memberRefs.get(m.ref) ?? [], m.inner)));
    if (!shape) { progress.badRow(r.id, `none of its ${r.ways.length} member ways has nodes in the file`); continue; }
    add(r, shape.lat, shape.lon, shape.radius, progress, emit);
  }
}

const isVenue = (tags: Tags): boolean => !!tags.name && osmTagsType(tags) !== undefined;

function add(p: Pending, lat: number, lon: number, radius: number | undefined, progress: Progress, emit: Emit): void {
  const t = p.tags;
  const hit = osmTagsType(t)!;
  if (!hit.exact) progress.unmappedCategory(`${hit.key}=${hit.value}`);
  const address = {
    street_address: streetLine(t['addr:street'] ?? t['addr:place'], t['addr:housenumber'], t['addr:country']),
    city: t['addr:city'], state: t['addr:state'], country: t['addr:country'], postal_code: t['addr:postcode'],
  };
  emit(makeVenue({ id: p.id, name: t.name, lat, lon, type: hit.type, radius, brand: t.brand, address: clean(address) }), p.id);
}

function clean<T extends object>(o: T): T {
  for (const k of Object.keys(o) as Array<keyof T>) if (o[k] === undefined) delete o[k];
  return o;
}
