/**
 * One validated, frozen configuration object (contract §6). Every setting comes from the
 * environment or the same name as a --flag (PORT ↔ --port, DWELL_DATA_DIR ↔ --data-dir), and
 * has a default so that `dwell serve` alone runs on the bundled sample venues.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { DEFAULT_CACHE_MB } from './cache-budget.js';
import { checkKeyText } from './secrets/key.js';

export const PACKAGE_ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Setting<T> { env: string; doc: string; parse: (raw: string) => T; fallback: () => T }

const int = (min: number, max: number) => (raw: string): number => {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`expected an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  return n;
};
const bool = (raw: string): boolean => {
  if (/^(true|1|yes)$/i.test(raw)) return true;
  if (/^(false|0|no|)$/i.test(raw)) return false;
  throw new Error(`expected true or false, got ${JSON.stringify(raw)}`);
};
const str = (raw: string): string => raw;
/** true or false, or an ISO-8601 instant with its zone: the movable clock starts there (ms since the epoch). */
const testClock = (raw: string): boolean | number => {
  if (!/^\d{4}-\d\d-\d\dT/.test(raw)) return bool(raw);
  const at = Date.parse(raw);
  if (!/(Z|[+-]\d\d:\d\d)$/.test(raw) || !Number.isFinite(at)) throw new Error(`expected true, false or an ISO-8601 instant with its zone, got ${JSON.stringify(raw)}`);
  return at;
};
/** Days, fractional allowed (0.5 is twelve hours); 0 turns the sweep off. */
const days = (raw: string): number => {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < 0 || n > 36_500) throw new Error(`expected a number of days from 0 to 36500 (fractions allowed, 0: never), got ${JSON.stringify(raw)}`);
  return n;
};
const dir = (raw: string): string => path.resolve(raw);

/** Where mutable state lives (contract §8): the embedded LMDB store, or every node of one NATS JetStream cluster. */
export type StateTarget = Readonly<{ kind: 'lmdb' } | { kind: 'nats'; servers: readonly string[] }>;
const state = (raw: string): StateTarget => {
  if (raw === 'lmdb') return Object.freeze({ kind: 'lmdb' as const });
  const servers = raw.split(',').map((s) => s.trim()).filter(Boolean);
  const bad = servers.find((s) => !/^nats:\/\/[^\s/]+(:\d{1,5})?$/.test(s));
  if (!servers.length || bad !== undefined) throw new Error(`expected lmdb or a list of NATS URLs such as nats://h1:4222,nats://h2:4222, got ${JSON.stringify(bad ?? raw)}`);
  return Object.freeze({ kind: 'nats' as const, servers: Object.freeze(servers) });
};

const SETTINGS = {
  port: { env: 'PORT', doc: 'HTTP port (0 picks a free one)', parse: int(0, 65535), fallback: () => 8080 },
  host: { env: 'DWELL_HOST', doc: 'address to listen on', parse: str, fallback: () => '0.0.0.0' },
  dataDir: { env: 'DWELL_DATA_DIR', doc: 'where apps, queues, user history and geofences are kept', parse: dir, fallback: () => path.resolve('var') },
  state: { env: 'DWELL_STATE', doc: 'where apps, users, geofences and queues live: `lmdb` (embedded, one server per data directory) or the NATS JetStream URLs that every node of a cluster shares', parse: state, fallback: (): StateTarget => Object.freeze({ kind: 'lmdb' as const }) },
  venues: { env: 'DWELL_VENUES', doc: 'the venue store to serve (a directory made by `dwell import`)', parse: dir, fallback: () => path.join(PACKAGE_ROOT, 'data', 'monaco') },
  adminToken: { env: 'DWELL_ADMIN_TOKEN', doc: 'bearer token of the admin API (unset: the admin API answers 401)', parse: str, fallback: () => '' },
  postbackAllowPrivate: { env: 'DWELL_POSTBACK_ALLOW_PRIVATE', doc: 'let postback URLs reach loopback, private and link-local addresses', parse: bool, fallback: () => false },
  workers: { env: 'DWELL_WORKERS', doc: 'detection worker threads', parse: int(1, 256), fallback: () => Math.max(1, availableParallelism()) },
  workerTasks: { env: 'DWELL_WORKER_TASKS', doc: 'tasks handed to each worker ahead of time; detections go in batches, at most 2 of them out to a worker (the one it runs and the next), so values above 2 only widen the start-up warm-up', parse: int(1, 1024), fallback: () => 12 },
  cacheMb: { env: 'DWELL_CACHE_MB', doc: 'MB the detection workers\' in-heap caches may hold together (learned access points and networks, venue records, estimated addresses, Wi-Fi names), split evenly between the workers', parse: int(8, 1_048_576), fallback: () => DEFAULT_CACHE_MB },
  warmUp: { env: 'DWELL_WARM_UP', doc: '`on`: /readyz waits for the detection workers to warm up on the venue store (synthetic detections until a detection\'s time stops falling, at most ~15 s); `off`: ready without warming, the first requests then run cold (tests and one-off runs, not a node that takes traffic)', parse: (raw: string): 'on' | 'off' => {
    if (raw !== 'on' && raw !== 'off') throw new Error(`expected on or off, got ${JSON.stringify(raw)}`);
    return raw;
  }, fallback: (): 'on' | 'off' => 'on' },
  maxQueue: { env: 'DWELL_MAX_QUEUE', doc: 'detections waiting for a worker before new ones are shed with 503', parse: int(1, 1_000_000), fallback: () => 2048 },
  rateLimit: { env: 'DWELL_RATE_LIMIT', doc: 'signed requests a second per app, bursts up to the same (0: unlimited)', parse: int(0, 10_000_000), fallback: () => 0 },
  postbackConcurrency: { env: 'DWELL_POSTBACK_CONCURRENCY', doc: 'postback sends in flight per app', parse: int(1, 10_000), fallback: () => 32 },
  postbackTimeoutMs: { env: 'DWELL_POSTBACK_TIMEOUT_MS', doc: 'a postback must be answered 2xx within this', parse: int(100, 600_000), fallback: () => 10_000 },
  deliveryPollMs: { env: 'DWELL_DELIVERY_POLL_MS', doc: 'how often the delivery worker polls the outbox (wake-ups only cut latency)', parse: int(10, 60_000), fallback: () => 250 },
  exportWindowMs: { env: 'DWELL_EXPORT_WINDOW_MS', doc: 'a bucket batch closes this long after its oldest trigger', parse: int(100, 3_600_000), fallback: () => 30_000 },
  exportMaxBytes: { env: 'DWELL_EXPORT_MAX_BYTES', doc: '... or at this many bytes of JSON lines', parse: int(1024, 1_000_000_000), fallback: () => 5_000_000 },
  exportUploadTimeoutMs: { env: 'DWELL_EXPORT_UPLOAD_TIMEOUT_MS', doc: 'deadline of one bucket upload', parse: int(1000, 600_000), fallback: () => 30_000 },
  secretKey: { env: 'DWELL_SECRET_KEY', doc: 'the operator\'s key (32 random bytes, base64: `openssl rand -base64 32`) that seals app secrets and bucket credentials in every store; never stored by Dwell, keep it apart from the data (unset: they are stored in clear)', parse: checkKeyText, fallback: () => '' },
  secretKeyFile: { env: 'DWELL_SECRET_KEY_FILE', doc: 'a file holding DWELL_SECRET_KEY instead (a mounted secret)', parse: (raw: string) => (raw === '' ? '' : path.resolve(raw)), fallback: () => '' },
  secretKeyOld: { env: 'DWELL_SECRET_KEY_OLD', doc: 'while the key is rotated: the previous key, still opened, never sealed with (see `dwell secrets rotate-key`)', parse: checkKeyText, fallback: () => '' },
  secretGraceS: { env: 'DWELL_SECRET_GRACE_S', doc: 'seconds an old app secret keeps working after rotate-secret', parse: int(0, 31_536_000), fallback: () => 86_400 },
  userRetentionDays: { env: 'DWELL_USER_RETENTION_DAYS', doc: 'a user\'s history, open stay and geofence presence are deleted this long after their last request (fractions allowed; 0: kept until erased)', parse: days, fallback: () => 365 },
  deadRetentionDays: { env: 'DWELL_DEAD_RETENTION_DAYS', doc: 'dead triggers are deleted this long after they were given up on (fractions allowed; 0: kept until replayed)', parse: days, fallback: () => 30 },
  recentCount: { env: 'DWELL_RECENT_COUNT', doc: 'recent detections kept per app for the explorer (/ui), request and answer (0: none kept)', parse: int(0, 100_000), fallback: () => 100 },
  recentDays: { env: 'DWELL_RECENT_DAYS', doc: 'a recent detection is deleted this long after it was made (fractions allowed; 0: only the count limits them)', parse: days, fallback: () => 7 },
  recentOptOut: { env: 'DWELL_RECENT_OPT_OUT', doc: 'app keys, comma-separated, whose detections are never kept for the explorer', parse: (raw: string): readonly string[] => Object.freeze(raw.split(',').map((s) => s.trim()).filter(Boolean)), fallback: (): readonly string[] => Object.freeze([]) },
  uiTiles: { env: 'DWELL_UI_TILES', doc: 'base-map raster tile URL template of the explorer, `{z}/{x}/{y}` (unset: no base map, Dwell\'s layers on a blank background)', parse: str, fallback: () => '' },
  drainTimeoutMs: { env: 'DWELL_DRAIN_TIMEOUT_MS', doc: 'how long SIGTERM waits for in-flight requests', parse: int(0, 600_000), fallback: () => 10_000 },
  storePollMs: { env: 'DWELL_STORE_POLL_MS', doc: 'how often the venue store is checked for a newer import', parse: int(100, 3_600_000), fallback: () => 2_000 },
  metricsPort: { env: 'DWELL_METRICS_PORT', doc: 'a second listener serving only GET /metrics, without the admin token (0 picks a free one; unset: none, and /metrics is on PORT with the admin token only)', parse: (raw: string): number | null => (raw === '' ? null : int(0, 65535)(raw)), fallback: (): number | null => null },
  metricsHost: { env: 'DWELL_METRICS_HOST', doc: 'address of the metrics listener: keep it internal (loopback, or a private interface a scraper reaches)', parse: str, fallback: () => '127.0.0.1' },
  testClock: { env: 'DWELL_TEST_CLOCK', doc: 'tests only, never in production: `POST /admin/clock` may move the server\'s time forward (TTLs, expiry, retention and backoff fall due at once); unset, it answers 403. An ISO-8601 instant instead of true starts the server\'s time there (a fixture written on a given day opens as on that day)', parse: testClock, fallback: (): boolean | number => false },
  logLevel: { env: 'DWELL_LOG_LEVEL', doc: 'debug, info, warn or error', parse: (raw: string) => {
    if (!['debug', 'info', 'warn', 'error'].includes(raw)) throw new Error(`expected debug, info, warn or error, got ${JSON.stringify(raw)}`);
    return raw as 'debug' | 'info' | 'warn' | 'error';
  }, fallback: () => 'info' as const },
} satisfies Record<string, Setting<unknown>>;

type Settings = typeof SETTINGS;
export type Config = Readonly<{ [K in keyof Settings]: ReturnType<Settings[K]['fallback']> }>;

/** `DWELL_DATA_DIR` ↔ `--data-dir`, `PORT` ↔ `--port`. */
export const flagName = (env: string) => '--' + env.replace(/^DWELL_/, '').toLowerCase().replace(/_/g, '-');

/** Every setting's flag without its dashes (`port`, `data-dir`, …): what `dwell serve` accepts. */
export const settingFlags = (): string[] => Object.values(SETTINGS).map((s) => flagName(s.env).slice(2));

/** Configs whose venue store was named (DWELL_VENUES or --venues), not defaulted: see `refuseVenuesInCluster`. */
const venuesNamed = new WeakSet<Config>();

export function loadConfig(flags: Record<string, string> = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const out: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(SETTINGS) as [string, Setting<unknown>][]) {
    const raw = flags[flagName(s.env)] ?? env[s.env];
    try {
      out[key] = raw === undefined ? s.fallback() : s.parse(raw);
    } catch (err) {
      throw new Error(`setting ${s.env} (${flagName(s.env)}): ${(err as Error).message}`);
    }
  }
  const config = Object.freeze(out) as Config;
  if ((flags[flagName(SETTINGS.venues.env)] ?? env[SETTINGS.venues.env]) !== undefined) venuesNamed.add(config);
  return config;
}

/**
 * Contract §8: a cluster node serves the store published to the cluster, so a node started with
 * both a NATS state and a venue store of its own refuses to start rather than ignore one of them.
 * Checked by the server at start-up only: other commands (apps, import --publish) may run with both set.
 */
export function refuseVenuesInCluster(config: Config): void {
  if (config.state.kind !== 'nats' || !venuesNamed.has(config)) return;
  throw new Error(`setting ${SETTINGS.venues.env} (${flagName(SETTINGS.venues.env)}): a cluster node (DWELL_STATE=nats://…) serves the venue store published to the cluster, not ${config.venues}; publish it with \`dwell import <file> --out <dir> --publish <NATS URLs>\` and start the node without ${flagName(SETTINGS.venues.env)}`);
}

/** The settings table for `dwell --help` and docs/operating.md. */
export function describeSettings(): string {
  return Object.values(SETTINGS as Record<string, Setting<unknown>>)
    .map((s) => `  ${s.env.padEnd(30)} ${flagName(s.env).padEnd(26)} ${s.doc}`)
    .join('\n');
}

/** How a default reads in the docs where its value would mislead: it depends on the machine, or says nothing alone. */
const DEFAULT_TEXT: { readonly [K in keyof Settings]?: string } = {
  dataDir: '`var` in the working directory',
  venues: 'the bundled Monaco sample (`data/monaco`)',
  adminToken: 'none',
  workers: 'number of cores',
  state: '`lmdb`',
  metricsPort: 'none',
  recentOptOut: 'none',
  uiTiles: 'none',
  secretKey: 'none',
  secretKeyFile: 'none',
  secretKeyOld: 'none',
};

/** The settings as a Markdown table (variable, flag, default, meaning): docs/operating.md's, kept equal to it by test/docs-settings. */
export function settingsMarkdown(): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const rows = (Object.entries(SETTINGS) as [keyof Settings, Setting<unknown>][]).map(([key, s]) => {
    const value = s.fallback();
    if (DEFAULT_TEXT[key] === undefined && typeof value === 'string' && path.isAbsolute(value)) {
      throw new Error(`setting ${s.env}: expected a DEFAULT_TEXT entry for its machine-specific default, got the path ${value}`);
    }
    const shown = DEFAULT_TEXT[key] ?? '`' + String(value) + '`';
    return `| \`${s.env}\` | \`${flagName(s.env)}\` | ${cell(shown)} | ${cell(s.doc)} |`;
  });
  return ['| Variable | Flag | Default | Meaning |', '|---|---|---|---|', ...rows].join('\n');
}
