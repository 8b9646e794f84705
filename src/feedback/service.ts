/** The feedback side of the server in one handle: its route, over the state engine in use, and a close for the drain. */
import type { StoreHandle } from '../venues/store.js';
import type { Versions } from '../learned/cache.js';
import type { LearnedState, UsersState } from '../state/types.js';
import { clusterStepper, embeddedStepper } from './record-step.js';
import { feedbackRoutes, type FeedbackHandler } from './routes.js';

export interface FeedbackService {
  routes: Array<[string, string, FeedbackHandler]>;
  close(): void;
}

/** `versions`: the detection workers' table (server/pool.ts); `cluster`: the cluster's state (contract §8), else LMDB in `dataDir`. */
export function openFeedback(deps: { dataDir: string; versions: Versions; venues: () => StoreHandle | null; cluster?: { users: UsersState; learned: LearnedState } }): FeedbackService {
  const stepper = deps.cluster ? clusterStepper(deps.cluster) : embeddedStepper(deps.dataDir, deps.versions);
  return { routes: feedbackRoutes({ stepper, venues: deps.venues }), close: () => stepper.close() };
}
