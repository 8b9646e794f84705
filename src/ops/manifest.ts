/**
 * A backup's `manifest.json`: which release and data format wrote it, when, what it holds (per
 * kind) and every file's size and SHA-256, which restore checks before it writes anything.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';

export const MANIFEST_FILE = 'manifest.json';

const Count = Type.Integer({ minimum: 0 });

export const Manifest = Type.Object({
  dwell_version: Type.String(),
  format_version: Type.Integer({ minimum: 0 }),
  created_at: Type.String({ description: 'ISO 8601, when the copy began' }),
  duration_ms: Type.Integer({ minimum: 0 }),
  /** The stores in the order they were copied (stores.ts says why that order). */
  order: Type.Array(Type.String()),
  counts: Type.Object({
    apps: Count, users: Count, learned: Count, geofences: Count, beacons: Count,
    triggers_pending: Count, triggers_dead: Count,
  }),
  files: Type.Array(Type.Object({ path: Type.String(), bytes: Count, sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }) })),
  bytes: Count,
});
export type Manifest = Static<typeof Manifest>;
export type Counts = Manifest['counts'];

const check = TypeCompiler.Compile(Manifest);

/** The backup's manifest, or an error that says what is wrong with it. */
export function readManifest(dir: string): Manifest {
  const file = path.join(dir, MANIFEST_FILE);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${dir} is not a dwell backup: ${file}: ${(err as Error).message}`);
  }
  const first = check.Check(value) ? undefined : check.Errors(value).First();
  if (first) throw new Error(`${file}: ${first.path || 'manifest'}: ${first.message.toLowerCase()}`);
  const m = value as Manifest;
  // Paths come from the file: none may leave the backup (or the data directory it is restored to).
  for (const f of m.files) if (path.isAbsolute(f.path) || f.path.split(/[\\/]/).includes('..')) throw new Error(`${file}: file path ${JSON.stringify(f.path)} leaves the backup`);
  return m;
}
