/** The postback sender as the delivery worker runs it: dispatcher + HTTP sender + metrics. */
import { PostbackDispatcher } from './dispatcher.js';
import type { DeliverySender, WorkerContext } from '../worker-contract.js';
import { PostbackSender } from './sender.js';
import { log } from '../../log.js';

export function postbackSender(ctx: WorkerContext): DeliverySender {
  const { init, metrics } = ctx;
  const http = new PostbackSender({ allowPrivate: init.allowPrivate, timeoutMs: init.timeoutMs });
  const dispatcher = new PostbackDispatcher({
    outbox: ctx.outbox,
    apps: ctx.apps.get,
    send: (url, secret, trigger, now) => http.send(url, secret, trigger, now),
    perApp: init.perApp,
    maxInFlight: init.maxInFlight,
    pollMs: init.pollMs,
    onAttempt: (outcome) => metrics.inc('dwell_postback_attempts_total', 'postback attempts by outcome', { outcome }),
    onFirstAttempt: (ms) => metrics.observe('dwell_postback_first_attempt_seconds', 'time from the 202 (trigger queued) to its first postback attempt', {}, ms / 1000),
    onError: (err) => log.error('postback dispatcher failed', { error: String((err as Error)?.stack ?? err) }),
  });
  return {
    name: 'postback',
    start: () => dispatcher.start(),
    wake: () => dispatcher.wake(),
    async stop() {
      await dispatcher.stop();
      await http.close();
    },
  };
}
