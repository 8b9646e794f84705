/**
 * The HTTP shell: routes to handlers, health, readiness and metrics, and a SIGTERM
 * drain. No business logic lives here.
 */
import { refuseVenuesInCluster, type Config } from '../config.js';
import { DwellError } from '../errors.js';
import { log } from '../log.js';
import { startDelivery } from '../delivery/service.js';
import { loadStore, watchStore, type StoreHandle } from '../venues/store.js';
import { Metrics } from '../http/metrics.js';
import { listenMetrics } from '../http/metrics-listener.js';
import { listenHttp } from '../http/listen.js';
import { DetectPool } from './pool.js';
import { Exchange, type Reply } from '../http/reply.js';
import { Router } from './router.js';
import { RateLimiter } from './rate-limit.js';
import { handleSigned } from './signed.js';
import { readiness } from './readiness.js';
import { detectHandler } from './detect-route.js';
import { checkMediaType } from '../http/json-body.js';
import { adminRoutes, checkBearer, handleAdmin, type AdminHandler } from './admin.js';
import { geofenceRoutes } from '../geofences/routes.js';
import { placeTriggerRoutes } from '../place-triggers/routes.js';
import { openBeaconService } from '../beacons/service.js';
import { dropUnscopedUsers } from '../users/drop-unscoped.js';
import { startPrivacy } from '../privacy/service.js';
import { servedDocs } from '../docs/openapi-served.js';
import { explorerRoutes } from '../ui/routes.js';
import type { ExplainTask } from '../pipeline/explain.js';
import { openState } from './state.js';
import { openFeedback } from '../feedback/service.js';
import { keyringFrom } from '../secrets/keyring.js';
import { MovableClock, systemClock, useClock } from '../time/clock.js';
import { clockRoutes } from './admin-clock.js';
import { closeAll } from './close-all.js';

type Handler = (ex: Exchange, params: Record<string, string>) => void;

export interface Server {
  port: number;
  /** Stops taking requests, lets in-flight ones finish (up to the drain timeout), then closes. */
  close(): Promise<void>;
}

export async function startServer(config: Config): Promise<Server> {
  refuseVenuesInCluster(config);
  // Time is handed down from here: every thread started below reads this clock (time/clock.ts).
  const clock = useClock(config.testClock === false ? systemClock : new MovableClock(undefined, config.testClock === true ? undefined : config.testClock));
  const metrics = new Metrics();
  // Before any worker opens the users store: see drop-unscoped.ts.
  await dropUnscopedUsers(config.dataDir);
  // Keys first: a wrong one is refused (by name) before anything opens or listens.
  const keyring = keyringFrom(config);
  const pool = new DetectPool(config.workers, config.workerTasks, config.maxQueue, config.cacheMb, config.warmUp);
  // Every kind of state, in whichever engine DWELL_STATE names: nothing below asks which.
  const kit = await openState(config, { keyring, metrics, versions: pool.versions }).catch(async (err) => { await pool.close(); throw err; });
  const { apps, outbox, replays, recent } = kit;
  const delivery = startDelivery({
    dataDir: config.dataDir, state: config.state, outbox, metrics, allowPrivate: config.postbackAllowPrivate, logLevel: config.logLevel, keyring,
    perApp: config.postbackConcurrency, timeoutMs: config.postbackTimeoutMs, pollMs: config.deliveryPollMs,
    exportWindowMs: config.exportWindowMs, exportMaxBytes: config.exportMaxBytes, exportUploadTimeoutMs: config.exportUploadTimeoutMs,
  });

  let store: StoreHandle | null = null;
  let draining = false;
  let inflight = 0;
  let idle: (() => void) | null = null;

  const venues = await kit.openVenues(); // cluster mode: the published snapshots
  // The workers warm up on the first store served, whichever finds it first (in cluster mode the
  // watcher, once a snapshot is published); warm() runs once per process.
  const stopWatching = watchStore(venues.root, (h) => { store = h; void pool.warm(h, config.dataDir); }, config.storePollMs);
  loadStore(venues.root).then((h) => {
    store ??= h;
    log.info('venue store loaded', { store: h.id, venues: h.count, dir: h.dir });
    void pool.warm(store, config.dataDir);
  }, (err) => log.error('venue store failed to load', { dir: venues.root, error: String(err?.message ?? err) }));

  metrics.gauge('dwell_detect_queue_depth', 'detections waiting for a worker', () => pool.queued);
  metrics.gauge('dwell_detect_worker_tasks', 'detection tasks handed to each worker since start', () => pool.handed(), ['worker']);
  metrics.gauge('dwell_outbox_depth', 'triggers in the outbox (pending and dead)', () => outbox.depth());
  metrics.gauge('dwell_inflight_requests', 'requests being handled', () => inflight);
  metrics.gauge('dwell_replay_cache_entries', 'signatures remembered against replays', () => replays.size);
  metrics.gauge('dwell_venues', 'venues in the served store', () => store?.count ?? 0);

  const signed = { apps, replays, limiter: new RateLimiter(config.rateLimit) };
  // The explorer's recent detections (recent/): kept by the detect route, erased by privacy/, shown by ui/.
  const recentAgeMs = config.recentDays * 86_400_000;
  const recentSweep = setInterval(() => recent.sweep(), Math.max(1000, Math.min(60_000, recentAgeMs / 4 || 60_000))).unref();
  const detectDeps = { pool, store: () => store, outbox, dataDir: config.dataDir, metrics, recent, state: config.state };
  const adminDeps = { apps, outbox, token: config.adminToken };
  const json = (ex: Exchange, r: Reply) => ex.send(r);

  const router = new Router<Handler>()
    .add('GET', '/healthz', (ex) => json(ex, { status: 200, body: { status: 'ok' } }))
    .add('GET', '/readyz', (ex) => json(ex, readiness({ store, workers: pool.state, delivery: delivery.state(), draining, state: kit.health(), secrets: apps.sealed ? 'sealed' : 'unsealed' })))
    // Contract §6: its labels name apps, so on this port only with the admin token.
    .add('GET', '/metrics', (ex) => {
      checkBearer(ex, config.adminToken);
      metrics.render().then((body) => json(ex, { status: 200, body, contentType: metrics.contentType }), (err) => ex.fail(err));
    })
    .add('POST', '/v1/detect', (ex) => handleSigned(ex, signed, checkMediaType, (e, app, raw) => detectHandler(detectDeps, e, app, raw)));
  for (const [method, pattern, h, limit] of geofenceRoutes({ store: kit.fences })) {
    router.add(method, pattern, (ex, params) => handleSigned(ex, signed, null, (e, app, raw) => h(params, e, app, raw), limit));
  }
  for (const [method, pattern, h] of placeTriggerRoutes(kit.placeTriggers)) {
    router.add(method, pattern, (ex, params) => handleSigned(ex, signed, null, (e, app, raw) => h(params, e, app, raw)));
  }
  const beacons = openBeaconService(kit.beacons, () => store);
  for (const [method, pattern, h, limit] of beacons.routes) {
    router.add(method, pattern, (ex, params) => handleSigned(ex, signed, null, (e, app, raw) => h(params, e, app, raw), limit));
  }
  const feedback = openFeedback({ stepper: kit.feedback, venues: () => store });
  for (const [method, pattern, h] of feedback.routes) {
    router.add(method, pattern, (ex, params) => handleSigned(ex, signed, null, (e, app, raw) => h(params, e, app, raw)));
  }
  const privacy = startPrivacy(config, { apps, outbox, engine: kit.privacy, beacons: kit.beacons, placeTriggers: kit.placeTriggers, metrics, recent, busy: () => inflight > 0 });
  for (const [method, pattern, h] of privacy.routes) {
    router.add(method, pattern, (ex, params) => handleSigned(ex, signed, null, (e, app, raw) => h(params, e, app, raw)));
  }
  for (const [method, pattern, h] of [...adminRoutes, ...privacy.adminRoutes, ...clockRoutes(clock)]) {
    router.add(method, pattern, (ex, params) => handleAdmin(ex, adminDeps, params, h as AdminHandler));
  }
  const explorer = {
    apps, recent, geofences: kit.fences, placeTriggers: kit.placeTriggers, explain: (task: ExplainTask) => pool.explain(task), checkAdmin: (ex: Exchange) => checkBearer(ex, config.adminToken),
    store: () => store, dataDir: config.dataDir, tiles: config.uiTiles, state: config.state,
  };
  for (const [method, pattern, h] of explorerRoutes(explorer)) router.add(method, pattern, h);

  // The API document of exactly the routes registered above, made on first request.
  const docs = servedDocs(() => router.routes());
  router
    .add('GET', '/openapi.json', (ex) => json(ex, { status: 200, body: docs().json }))
    .add('GET', '/docs', (ex) => json(ex, { status: 200, body: docs().html, contentType: 'text/html; charset=utf-8' }));

  const listener = await listenHttp(config.host, config.port, (res, head) => {
    let route = 'unmatched';
    let match: ReturnType<typeof router.match> | undefined;
    try {
      match = router.match(head.method, head.url);
      route = match.route;
    } catch { /* answered below, once the exchange exists */ }
    inflight++;
    privacy.enter();
    const ex = new Exchange(res, head, route, metrics, () => {
      privacy.leave();
      if (--inflight === 0 && idle) idle();
    });
    ex.run(() => dispatch(ex, match));
  });
  const dispatch = (ex: Exchange, match: ReturnType<typeof router.match> | undefined) => {
    if (draining) return ex.fail(new DwellError('unavailable', 'the server is shutting down', undefined, 1), true);
    if (!match) {
      try {
        router.match(ex.method, ex.url);
      } catch (err) {
        const allow = (err as { allow?: string }).allow;
        const e = err as DwellError;
        return ex.send({ status: e.status, body: e.toJSON(), headers: allow ? { Allow: allow } : {} });
      }
    }
    try {
      match!.handler(ex, match!.params);
    } catch (err) {
      ex.fail(err);
    }
  };

  const port = listener.port;
  const internal = config.metricsPort === null ? null : await listenMetrics(metrics, config.metricsHost, config.metricsPort);
  if (internal) log.notice('metrics listening', { port: internal.port, host: config.metricsHost });
  log.notice('listening', { port, host: config.host, workers: config.workers, data_dir: config.dataDir });

  return {
    port,
    async close() {
      if (draining) return;
      draining = true;
      listener.stop();
      log.info('draining', { inflight });
      if (inflight > 0) {
        await new Promise<void>((resolve) => {
          idle = resolve;
          setTimeout(resolve, config.drainTimeoutMs).unref();
        });
      }
      // The workers before the stores: they read the venue store, users and replays until they stop.
      await closeAll('server', [
        ['venue watch', stopWatching], ['metrics listener', () => internal?.close()], ['detection pool', () => pool.close()],
        ['venues', () => venues.close()], ['privacy', () => privacy.close()], ['recent sweep', () => clearInterval(recentSweep)],
        ['delivery', () => delivery.close()], ['state', () => kit.close()],
      ]);
      log.info('stopped', { inflight });
    },
  };
}
