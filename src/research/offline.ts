/**
 * Offline accuracy harness: runs the detection core in-process over a vdsim request set and
 * scores the answers with vdsim (replay.ts). No server, no HTTP: this is what ranking work
 * iterates with. The official figure is `npm run bench:accuracy`, through the real server.
 *
 *   node dist/src/research/offline.js --venues V.jsonl.gz --requests DIR [--results FILE]
 *        [--ablate popularity,history,wifiPos,silence,radiusCap,counted,legs,…] [--set temperature=1.2,none=-3]
 *        [--pos minStays=3] [--learned priorVisits=40] [--footprint priorStays=10] [--type priorStays=20,hour=0.6] [--counted priorStays=20]
 *        [--leg windowS=300] [--beacon sigmaDb=8,missCap=4] [--aps APS.jsonl]
 *
 * A set made with vdsim --beacons has DIR/beacons.jsonl, the app's registry: it is used as the
 * service would hold it after an import (`--ablate beacons` ignores the scans).
 * `--aps` (from `ceilings.js aps`) puts the simulator's access points in the store before the
 * replay, each as a place known to 1 m: the ceiling of Wi-Fi positioning with a perfect map.
 */
import { DEFAULT_PARAMS, withParams, type ParamOverrides } from '../detect/params.js';
import { die, flags } from './flags.js';
import { replay, venueStore } from './replay.js';

/** Flag → the parameter group it sets (params.ts). */
const GROUPS = { learned: 'learned', footprint: 'footprint', type: 'typePriors', counted: 'counted', pos: 'wifiPos', leg: 'leg', beacon: 'beacons', set: 'weights' } as const;
const USAGE = 'offline --venues V.jsonl[.gz] --requests DIR [--results FILE] [--ablate a,b] [--set k=v,...] [--aps APS.jsonl] (the file header lists the rest)';
const { values: opts } = flags(['venues', 'requests', 'results', 'ablate', 'aps', ...Object.keys(GROUPS) as Array<keyof typeof GROUPS>], USAGE);
if (!opts.venues || !opts.requests) die(`usage: ${USAGE}`);

/** Factors that are switched off by something other than a zero weight. */
const ABLATE: Record<string, [string, string, number]> = {
  wifiPos: ['wifiPos', 'on', 0], silence: ['silence', 'minMs', Infinity], footprint: ['footprint', 'on', 0],
  typePriors: ['typePriors', 'on', 0], counted: ['counted', 'on', 0], beacons: ['beacons', 'on', 0], legs: ['leg', 'on', 0], radiusCap: ['weights', 'maxRadius', Infinity],
};

/**
 * The model's parameters for this run, from the flags: a frozen variant of the defaults (nothing
 * shared is changed). --ablate switches factors off; the other flags set one group's values.
 */
function paramsFromFlags() {
  const o: Record<string, Record<string, number>> = {};
  const set = (group: string, k: string, v: number) => { (o[group] ??= {})[k] = v; };
  for (const f of (opts.ablate ?? '').split(',').filter(Boolean)) {
    if (ABLATE[f]) { set(...ABLATE[f]); continue; }
    if (!(f in DEFAULT_PARAMS.weights)) die(`unknown factor ${f}`);
    set('weights', f, 0);
  }
  for (const [flag, group] of Object.entries(GROUPS)) {
    for (const kv of (opts[flag as keyof typeof GROUPS] ?? '').split(',').filter(Boolean)) {
      const [k, v] = kv.split('=');
      set(group, k, Number(v));
    }
  }
  return withParams(DEFAULT_PARAMS, o as ParamOverrides);
}
const params = paramsFromFlags();

const run = replay({ venues: await venueStore(opts.venues), requests: opts.requests, params, results: opts.results, aps: opts.aps });
const perEvent = run.perEvent.sort((a, b) => a - b);
const q = (p: number) => perEvent.length ? Number(perEvent[Math.floor(p * (perEvent.length - 1))].toFixed(3)) : null;
// Printed as before this setting joined its group: without `on`, which `wifi_pos: 'off'` says.
const { on: _on, ...wifiPos } = params.wifiPos;
console.log(JSON.stringify({ ...run.score, requests: run.requests, wall_s: Number(run.wallS.toFixed(1)),
  ms_per_event_p50: q(0.5), ms_per_event_p99: q(0.99), weights: params.weights, wifi_pos: params.wifiPos.on ? wifiPos : 'off', learned: params.learned, footprint: params.footprint, counted: params.counted, legs: params.leg, type_priors: params.typePriors, beacons: params.beacons }));
