/**
 * The dependency rule (issue 15): imports point one way, from the shell through the features to
 * state and core, never back, and never in a circle. `npm run lint:deps` checks it in CI.
 *
 *   shell     src/server/, src/pipeline/, src/ui/ (the explorer), src/ops/ (backup, restore, data format), workers/, src/cli*.ts, src/docs/, src/index.ts,
 *             src/research/ (the accuracy research tools: command lines over the detection core, not shipped)
 *   features  src/detect/, src/geofences/, src/delivery/, src/venues/, src/apps/, src/privacy/, src/recent/, src/beacons/, src/feedback/
 *   state     src/users/, src/learned/, src/state/
 *   core      src/schemas/, src/http/, src/net/, src/geo/, src/time/, src/secrets/, src/errors.ts, src/log.ts, src/log-*.ts, src/signing.ts,
 *             src/config.ts, src/data-dir-lock.ts, src/cache-budget.ts, src/client/
 *
 * A feature imports another feature only when it is venues/ or apps/: those two are the
 * reference data every feature reads (the venue store a detection ranks against, the app record
 * whose settings a geofence route or a delivery obeys), and they import no other feature, so
 * the exception cannot close a loop. Every other sideways need is met by moving the shared piece
 * down (the task contract to schemas/, the private-address guard to net/). privacy/ is the one
 * feature that reaches into the others' stores: erasing a user or an app means removing what
 * every feature kept for them (contract §7); so no feature may import privacy/. feedback/ likewise
 * reaches into detection: a visit's venue, once the user names it, teaches what detection learns
 * (contract §10); no feature imports feedback/.
 *
 * Worker threads are started by URL (`new Worker(new URL('../../workers/x.js', import.meta.url))`),
 * which no import shows; the module that starts one names its entry point as a type
 * (`export type * as …Entry from '../../workers/x.js'`), so the rule follows that edge like any
 * other and finds a cycle through a thread. Only those starters may point at workers/
 * (THREAD_STARTERS), each at its own thread.
 *
 * client/ is what customers' servers install (`dwell/client`): it runs in their process, so it
 * imports only the signing and the schemas' types, never the service's state, logs or config.
 */
const SHELL = '^(src/(server|pipeline|docs|ui|ops|research)/|workers/|src/cli[^/]*\\.ts$|src/index\\.ts$)';
const FEATURES = '^src/(detect|geofences|delivery|venues|apps|privacy|recent|beacons|feedback)/';
const STATE = '^src/(users|learned|state)/';
/** Module that starts a worker thread → the entry point it starts. */
const THREAD_STARTERS = {
  'src/privacy/sweep-thread\\.ts$': '^workers/sweep\\.ts$',
  'src/server/pool\\.ts$': '^workers/detect\\.ts$',
  'src/delivery/service\\.ts$': '^workers/delivery\\.ts$',
};
const STARTER = `^(${Object.keys(THREAD_STARTERS).join('|')})`;
const CORE = '^src/((schemas|http|net|geo|time|secrets|client)/|(errors|log|log-[a-z-]+|config|data-dir-lock|signing|cache-budget)\\.ts$)';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle means neither module can be understood, tested or moved without the other.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-upward-from-features',
      severity: 'error',
      comment: 'Features are used by the shell and never use it: move what both need down to core.',
      from: { path: FEATURES },
      to: { path: SHELL, pathNot: '^workers/' },
    },
    {
      name: 'only-thread-starters-point-at-workers',
      severity: 'error',
      comment: 'workers/ are thread entry points: only the module that starts a thread names it, and only its own.',
      from: { path: '^src/', pathNot: STARTER },
      to: { path: '^workers/' },
    },
    ...Object.entries(THREAD_STARTERS).map(([from, entry]) => ({
      name: 'a-starter-names-its-own-thread',
      severity: 'error',
      comment: 'A starter names the entry point of the thread it starts, no other.',
      from: { path: `^${from}` },
      to: { path: '^workers/', pathNot: entry },
    })),
    {
      name: 'no-upward-from-state',
      severity: 'error',
      comment: 'State is what features keep; it knows nothing of them or of the shell.',
      from: { path: STATE },
      to: { path: [SHELL, FEATURES] },
    },
    {
      name: 'no-upward-from-core',
      severity: 'error',
      comment: 'Core (schemas, errors, logs, config, HTTP and time helpers) depends on nothing of ours above it.',
      from: { path: CORE },
      to: { path: [SHELL, FEATURES, STATE] },
    },
    {
      name: 'features-only-import-venues-and-apps-sideways',
      severity: 'error',
      comment: 'venues/ and apps/ are reference data every feature reads; other features stay apart.',
      from: { path: '^src/(detect|geofences|delivery|venues|apps|recent|beacons)/' },
      to: { path: '^src/(detect|geofences|delivery|recent|beacons|feedback)/', pathNot: '^src/$1/' },
    },
    {
      name: 'no-feature-imports-privacy',
      severity: 'error',
      comment: 'privacy/ imports the other features\' stores to erase across them, so none of them imports it.',
      from: { path: '^src/(detect|geofences|delivery|venues|apps|recent|beacons)/' },
      to: { path: '^src/privacy/' },
    },
    {
      name: 'reference-data-imports-no-feature',
      severity: 'error',
      comment: 'venues/ and apps/ may be imported by every feature, so they import none.',
      from: { path: '^src/(venues|apps)/' },
      to: { path: FEATURES, pathNot: '^src/$1/' },
    },
    {
      name: 'client-imports-only-signing-and-schemas',
      severity: 'error',
      comment: 'The client runs in customers\' servers: signing and schema types only, nothing of the service.',
      from: { path: '^src/client/' },
      to: { path: '^src/', pathNot: '^src/(client/|schemas/|signing\\.ts$)' },
    },
    {
      name: 'src-imports-no-entry-points-benches-or-tests',
      severity: 'error',
      comment: 'bench/ and test/ use src/; src/ never uses them (workers/: see only-thread-starters-point-at-workers).',
      from: { path: '^src/' },
      to: { path: '^(bench|test)/' },
    },
    {
      name: 'every-module-in-a-layer',
      severity: 'error',
      comment: 'A new folder or top-level file gets a layer here (and a line in the README\'s Layout).',
      from: { path: '^src/', pathNot: [SHELL, FEATURES, STATE, CORE] },
      to: {},
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.d.ts', '.json'],
    },
  },
};
