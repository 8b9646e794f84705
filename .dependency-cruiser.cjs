/**
 * The dependency rule (issue 15): imports point one way, from the shell through the features to
 * state and core, never back, and never in a circle. `npm run lint:deps` checks it in CI.
 *
 *   shell     src/server/, src/pipeline/, src/ui/ (the explorer), src/ops/ (backup, restore, data format), workers/, src/cli*.ts, src/docs/, src/index.ts,
 *             src/research/ (the accuracy research tools: command lines over the detection core, not shipped)
 *   features  src/detect/, src/geofences/, src/delivery/, src/venues/, src/apps/, src/privacy/, src/recent/, src/beacons/, src/feedback/,
 *             src/place-triggers/, src/regions/, src/integrity/
 *   state     src/users/, src/learned/, src/state/
 *   core      src/schemas/, src/http/, src/net/, src/geo/, src/time/, src/secrets/, src/errors.ts, src/log.ts, src/log-*.ts, src/signing.ts,
 *             src/config.ts, src/data-dir-lock.ts, src/cache-budget.ts, src/client/
 *
 * The kinds of trigger (contract §11) are built on the fences': place-triggers/ and regions/ take
 * geofences/' fix model and edge geometry (a venue's radius is a circle, crossed as a fence is),
 * and nothing else sideways; geofences/ and the other features never import them. integrity/
 * (contract §12) is a step of detection: it reads the detection's context type and is imported by
 * detect/, and by no other feature. Its two shapes that state keeps (flags.ts: a visit's flags,
 * stored with the visits it answered; networks.ts: where a learned network may accuse) sit in the
 * state layer, so users/, learned/ and delivery/ read them.
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
 * imports only the signing, the schemas' types and the real clock (time/wall.ts, which imports
 * nothing), never the service's state, logs or config.
 *
 * Tests and benchmarks (issue 41, "One toolbox"): test/ and bench/ never import each other; what
 * both need (starting `dwell serve` and nats-server, child processes and free ports, the strict
 * flag reader, the accuracy harness) is src/devkit/, which imports neither and which the product
 * never imports (only the research tools, themselves tooling, may); bench/ reaches the research
 * tools' shared parts through it too. Like src/research/, it is left out of the published package
 * (package.json "files").
 */
const SHELL = '^(src/(server|pipeline|docs|ui|ops|research|devkit)/|workers/|src/cli[^/]*\\.ts$|src/index\\.ts$)';
const FEATURES = '^src/(?!integrity/(flags|networks)\\.ts$)(detect|geofences|delivery|venues|apps|privacy|recent|beacons|feedback|place-triggers|regions|integrity)/';
/** integrity/flags.ts and networks.ts are what state keeps of integrity (a visit's flags, where a network may accuse): state. */
const STATE = '^src/((users|learned|state)/|integrity/(flags|networks)\\.ts$)';
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
      to: { path: '^src/(detect|geofences|delivery|recent|beacons|feedback|place-triggers|regions)/', pathNot: '^src/$1/' },
    },
    {
      name: 'trigger-kinds-build-on-geofences-only',
      severity: 'error',
      comment: 'place-triggers/ and regions/ reuse the fences\' fixes and geometry; every other sideways need moves down.',
      from: { path: '^src/(place-triggers|regions)/' },
      to: { path: '^src/(detect|delivery|recent|beacons|feedback|integrity|place-triggers|regions)/', pathNot: '^src/$1/' },
    },
    {
      name: 'integrity-is-a-step-of-detection',
      severity: 'error',
      comment: 'integrity/ may read detect/\'s context; detect/ is the only feature that imports it.',
      from: { path: '^src/(geofences|delivery|venues|apps|recent|beacons|place-triggers|regions)/' },
      to: { path: '^src/integrity/', pathNot: '^src/integrity/(flags|networks)\\.ts$' },
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
      to: { path: '^src/', pathNot: '^src/(client/|schemas/|signing\\.ts$|time/wall\\.ts$)' },
    },
    {
      name: 'src-imports-no-entry-points-benches-or-tests',
      severity: 'error',
      comment: 'bench/ and test/ use src/; src/ never uses them (workers/: see only-thread-starters-point-at-workers).',
      from: { path: '^src/' },
      to: { path: '^(bench|test)/' },
    },
    {
      name: 'bench-and-test-import-each-other-never',
      severity: 'error',
      comment: 'bench/ and test/ share what both need through src/devkit/, never by importing each other.',
      from: { path: '^(bench|test)/' },
      to: { path: '^(bench|test)/', pathNot: '^$1/' },
    },
    {
      name: 'bench-uses-the-devkit-not-the-research-tools',
      severity: 'error',
      comment: 'src/research/ are command lines; what a benchmark shares with them (seeded randomness, vdsim, flags) is in src/devkit/.',
      from: { path: '^bench/' },
      to: { path: '^src/research/' },
    },
    {
      name: 'only-tooling-imports-the-devkit',
      severity: 'error',
      comment: 'src/devkit/ is test and benchmark tooling, not shipped: the product never depends on it.',
      from: { path: '^(src|workers)/', pathNot: '^src/(devkit|research)/' },
      to: { path: '^src/devkit/' },
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
    exclude: { path: '^(dist|test/fixtures)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.d.ts', '.json'],
    },
  },
};
