/**
 * The opening most end-to-end files share: a server and an app on it. `dwellWithApp` gives a
 * whole file one server (started before its first test, stopped after its last), for files whose
 * tests do not interfere; `withDwellApp` gives one test a server of its own, stopped however the
 * test ends (`withDwell`: a server and no app).
 */
import { after, before } from 'node:test';
import { createApp, type TestApp } from './client.js';
import { startDwell, type Running } from './server.js';

export interface DwellOptions {
  /** The app's delivery (sync by default). */
  delivery?: Record<string, unknown>;
  /** After `dwell serve` on its command line. */
  args?: string[];
  /** false: do not wait for /readyz (a server that is not to become ready). */
  ready?: boolean;
}

/** A server and its first app. */
export type DwellApp = Running & {
  app: TestApp;
  /** Stops the server and starts it again with the same settings on the same data directory (another port). */
  restart(this: DwellApp): Promise<void>;
};

async function start(env: Record<string, string>, opts: DwellOptions): Promise<DwellApp> {
  const dwell = await startDwell(env, { args: opts.args, ready: opts.ready });
  async function restart(this: DwellApp) {
    await this.stop();
    Object.assign(this, await startDwell({ ...env, DWELL_DATA_DIR: this.dataDir }, { args: opts.args, ready: opts.ready }));
  }
  try {
    return Object.assign(dwell, { app: await createApp(dwell.url, opts.delivery), restart });
  } catch (err) {
    await dwell.stop();
    throw err;
  }
}

/** What a file does around its shared server, in the same `before` hook (Node 20 runs a file's top-level hooks at once, not in turn). */
export interface FileHooks {
  /** Before the server starts (a venue store it is to serve). */
  prepare?: () => Promise<void>;
  /** Once it serves (fences, pages, documents the tests read). */
  setUp?: (dwell: DwellApp) => Promise<void>;
}

/**
 * One server for the test file. Answers at once an object that the `before` hook fills: read its
 * fields (`dwell.url`, `dwell.app`, …) inside tests and `setUp`, not at the file's top level.
 */
export function dwellWithApp(env: Record<string, string> = {}, opts: DwellOptions & FileHooks = {}): DwellApp {
  const shared = {} as DwellApp;
  before(async () => {
    await opts.prepare?.();
    Object.assign(shared, await start(env, opts));
    await opts.setUp?.(shared);
  });
  after(() => shared.stop?.());
  return shared;
}

/** A server of the test's own for `fn`, stopped when `fn` ends or throws; answers what `fn` answers. */
export async function withDwellApp<T>(env: Record<string, string>, fn: (dwell: DwellApp) => Promise<T>, opts: DwellOptions = {}): Promise<T> {
  return using(await start(env, opts), fn);
}

/** `withDwellApp` with no app (a server whose admin API is closed, or refuses the app). */
export async function withDwell<T>(env: Record<string, string>, fn: (dwell: Running) => Promise<T>, opts: Omit<DwellOptions, 'delivery'> = {}): Promise<T> {
  return using(await startDwell(env, opts), fn);
}

async function using<D extends Running, T>(dwell: D, fn: (dwell: D) => Promise<T>): Promise<T> {
  try {
    return await fn(dwell);
  } finally {
    await dwell.stop();
  }
}
