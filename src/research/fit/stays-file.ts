/**
 * Labelled rankings on disk, one stay a line: where the refit's data can come from besides a
 * vdsim replay. An app's visit feedback (contract §10) becomes this file by explaining each
 * visit that got feedback (the explain route's named factors, for every candidate scored) and
 * writing the venue the user named, or null for `not_a_stop`.
 *
 *   {"truth": "venue id" | null, "sigma": 12.5, "temperature": 1,
 *    "rows": [{"id": "", "x": {"distance": -4.1, "none": -3}}, {"id": "v1", "x": {"distance": -2.2, "popularity": 3.1}}, …]}
 *
 * Row 0 is "none of these" (id ""). Factor names are rank.ts's (record.ts FACTORS).
 */
import fs from 'node:fs';
import { F, FACTORS, label, type LabelledStay } from './record.js';

interface Line { truth: string | null; sigma: number; temperature: number; rows: Array<{ id: string; x: Record<string, number> }> }

export function writeStays(file: string, stays: readonly LabelledStay[]): void {
  const out = fs.openSync(file, 'w');
  for (const s of stays) {
    if (s.rows < 1 || s.y < 0) continue;
    const rows = s.ids.map((id, r) => ({ id, x: Object.fromEntries(FACTORS.map((f, k) => [f, s.x[r * F + k]]).filter(([, v]) => v !== 0)) }));
    const line: Line = { truth: s.y > 0 ? s.ids[s.y] : null, sigma: s.sigma, temperature: s.temperature, rows };
    fs.writeSync(out, JSON.stringify(line) + '\n');
  }
  fs.closeSync(out);
}

export function readStays(file: string): LabelledStay[] {
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => {
    const line = JSON.parse(l) as Line;
    const x = new Float64Array(line.rows.length * F);
    line.rows.forEach((row, r) => {
      for (const [f, v] of Object.entries(row.x)) {
        const k = FACTORS.indexOf(f as (typeof FACTORS)[number]);
        if (k < 0) throw new Error(`${file}: unknown factor ${f}`);
        x[r * F + k] = v;
      }
    });
    return label({ x, rows: line.rows.length, y: -1, sigma: line.sigma, temperature: line.temperature, ids: line.rows.map((r) => r.id) }, line.truth);
  });
}
