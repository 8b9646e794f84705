import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A scratch directory, removed when the process exits (a restarted server may reuse it until then). */
export function tempDir(prefix = 'dwell-test-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
