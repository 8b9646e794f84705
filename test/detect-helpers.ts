/** Test support (not a test file). Shared set-up for the detection tests: fixture venues, a throwaway user store, a context. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PARAMS, type DetectContext } from '../src/detect/index.js';
import { MemoryVenueStore } from './helpers/memory-venues.js';
import { openUserStore } from '../src/users/store.js';

export const fixture = (rel: string): string => fileURLToPath(new URL(`../../test/fixtures/detect/${rel}`, import.meta.url));

/** A scratch directory, removed when the test file's process exits. */
export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dwell-detect-test-'));
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function context(venuesFile: string, dataDir = tempDir()): DetectContext & { dataDir: string } {
  return {
    venues: MemoryVenueStore.fromJsonl(fixture(venuesFile)),
    users: openUserStore(dataDir),
    estimateAddress: () => ({ city: 'Testville', country: 'US' }),
    app: { app_key: 'test-app', confirm_dwell_s: 300 },
    // The server's time when these requests arrive: after every fixture's signals (contract §12
    // flags a signal more than 300 s after it as clock_skew, and a flagged visit teaches nothing).
    now: Date.parse('2025-01-01T00:00:00Z'),
    params: DEFAULT_PARAMS,
    dataDir,
  };
}
