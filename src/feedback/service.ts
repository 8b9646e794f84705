/** The feedback side of the server in one handle: its route, over the state engine's record stepper (server/state.ts). */
import type { StoreHandle } from '../venues/store.js';
import type { RecordStepper } from './record-step.js';
import { feedbackRoutes, type FeedbackHandler } from './routes.js';

export interface FeedbackService {
  routes: Array<[string, string, FeedbackHandler]>;
}

export function openFeedback(deps: { stepper: RecordStepper; venues: () => StoreHandle | null }): FeedbackService {
  return { routes: feedbackRoutes({ stepper: deps.stepper, venues: deps.venues }) };
}
