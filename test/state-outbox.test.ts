/**
 * One suite for the trigger queue's interface (src/state/outbox-types.ts), run against both
 * engines: the embedded LMDB outbox and the JetStream streams of cluster mode (a real
 * nats-server started by the test). What a sender, the admin API and the privacy code rely on:
 * enqueue then claim, ack removes, retry comes back later with the attempt counted, kill keeps
 * it as dead (listed, replayable), a user's or an app's triggers can be removed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Outbox } from '../src/delivery/outbox.js';
import { NatsOutbox } from '../src/state/nats/outbox.js';
import type { OutboxEntry, TriggerQueue } from '../src/state/outbox-types.js';
import type { Trigger } from '../src/schemas/visit.js';
import { startNatsCluster, type NatsCluster } from './helpers/nats-server.js';
import { tempDir } from './helpers/server.js';
import { until } from './helpers/until.js';
import { newTriggerId } from '../src/delivery/trigger-id.js';

const trigger = (app: string, user: string | null): Trigger => ({
  data: { id: newTriggerId(), request_id: 'r', event_id: 'e', user_info: { user_id: user, device_id: null, app_key: app, custom_data: null } },
  result: 'SUCCESS',
});

/** Claims until `n` entries of `app` came (JetStream hands them over asynchronously), or 10 s passed. */
async function claim(q: TriggerQueue, app: string, n: number): Promise<OutboxEntry[]> {
  const got: OutboxEntry[] = [];
  await until(`${n} claimed`, () => {
    got.push(...q.claimDue([[app, n - got.length]], Date.now()));
    return got.length >= n;
  }, 10_000, 25).catch(() => undefined); // the caller asserts on what came
  return got;
}

/** The claims-across-nodes test's ack wait, ms. */
const ACK_WAIT_MS = 1_500;

interface Engine { producer: TriggerQueue; consumer: TriggerQueue; close(): Promise<void> }

const engines: Array<[string, () => Promise<Engine>]> = [
  ['lmdb', async () => {
    const q = new Outbox(tempDir('dwell-outbox-'));
    return { producer: q, consumer: q, close: () => q.close() };
  }],
  ['nats', async () => {
    const producer = await NatsOutbox.open(nats.urls.split(','), { statsMs: 100 });
    const consumer = await NatsOutbox.open(nats.urls.split(','), { consume: true, statsMs: 0, ackWaitMs: 2_000 });
    return { producer, consumer, close: async () => { await consumer.close(); await producer.close(); } };
  }],
];

let nats: NatsCluster;
before(async () => { nats = await startNatsCluster(1); });
after(() => nats.stop());

let appN = 0;
for (const [name, make] of engines) {
  describe(`trigger queue on ${name}`, () => {
    let e: Engine;
    before(async () => { e = await make(); });
    after(() => e.close());

    test('enqueued triggers are claimed once with their bytes; acked ones are gone', async () => {
      const app = `ak_t${++appN}`;
      const ts = [trigger(app, 'u1'), trigger(app, 'u2'), trigger(app, null)];
      await e.producer.enqueue(app, ts);
      const got = await claim(e.consumer, app, 3);
      assert.deepEqual(got.map((x) => x.id).sort(), ts.map((t) => t.data.id).sort());
      for (const x of got) {
        assert.equal(x.attempts, 1);
        assert.equal(JSON.parse(x.body.toString()).data.id, x.id);
      }
      assert.equal(e.consumer.claimDue([[app, 10]], Date.now()).length, 0, 'held: not handed out twice');
      await e.consumer.settle({ acks: got });
      // JetStream applies an ack without answering it (a lost ack only means a second delivery).
      await until('the acked triggers gone', async () => (await e.producer.list(app, 'pending')).length === 0);
    });

    test('a retry comes back when due, with the attempt counted', async () => {
      const app = `ak_t${++appN}`;
      await e.producer.enqueue(app, [trigger(app, 'u1')]);
      const [first] = await claim(e.consumer, app, 1);
      await e.consumer.settle({ retries: [{ app_key: app, id: first.id, at: Date.now() + 300, error: 'HTTP 500' }] });
      const [again] = await claim(e.consumer, app, 1);
      assert.equal(again.id, first.id);
      assert.equal(again.attempts, 2);
      await e.consumer.ack([again]);
    });

    test('a killed trigger is dead: listed, replayed, then delivered', async () => {
      const app = `ak_t${++appN}`;
      await e.producer.enqueue(app, [trigger(app, 'u1')]);
      const [x] = await claim(e.consumer, app, 1);
      await e.consumer.settle({ kills: [{ app_key: app, id: x.id, error: 'HTTP 410' }] });
      const dead = await e.producer.list(app, 'dead');
      assert.equal(dead.length, 1);
      assert.equal(dead[0].id, x.id);
      assert.equal(dead[0].last_error, 'HTTP 410');
      assert.equal(JSON.parse(dead[0].body).data.id, x.id);
      assert.equal(await e.producer.replayDead(app), 1);
      assert.equal((await e.producer.list(app, 'dead')).length, 0);
      const [back] = await claim(e.consumer, app, 1);
      assert.equal(back.id, x.id);
      assert.ok(back.replayed_at, 'the retry window starts again from the replay');
      await e.consumer.ack([back]);
    });

    test('erasing a user removes their triggers, pending and dead, and no one else\'s', async () => {
      const app = `ak_t${++appN}`;
      await e.producer.enqueue(app, [trigger(app, 'gone')]);
      const [x] = await claim(e.consumer, app, 1);
      await e.consumer.settle({ kills: [{ app_key: app, id: x.id, error: 'refused' }] });
      await e.producer.enqueue(app, [trigger(app, 'gone'), trigger(app, 'kept')]);
      assert.equal((await e.producer.userTriggers(app, 'gone')).length, 2);
      const removed = await e.producer.eraseUser(app, 'gone');
      assert.deepEqual(removed, { pending: 1, dead: 1 });
      assert.equal((await e.producer.userTriggers(app, 'gone')).length, 0);
      const left = await e.producer.list(app, 'pending');
      assert.deepEqual(left.map((l) => JSON.parse(l.body).data.user_info.user_id), ['kept']);
    });

    test('deleting an app removes all its triggers; other apps keep theirs', async () => {
      const app = `ak_t${++appN}`;
      const other = `ak_t${++appN}`;
      await e.producer.enqueue(app, [trigger(app, 'a'), trigger(app, 'b')]);
      await e.producer.enqueue(other, [trigger(other, 'a')]);
      let n = 0;
      for (let k: number; (k = await e.producer.deleteApp(app, 1000)) > 0;) n += k;
      assert.ok(n >= 2);
      assert.equal((await e.producer.list(app, 'pending')).length, 0);
      assert.equal((await e.producer.list(other, 'pending')).length, 1);
    });
  });
}

describe('trigger queue on nats: claims across nodes', () => {
  test('a held claim stays with its node past the ack wait (kept alive); once that node is gone, another node gets it', async () => {
    const urls = nats.urls.split(',');
    const producer = await NatsOutbox.open(urls, { statsMs: 0 });
    const a = await NatsOutbox.open(urls, { consume: true, statsMs: 0, ackWaitMs: ACK_WAIT_MS });
    const b = await NatsOutbox.open(urls, { consume: true, statsMs: 0, ackWaitMs: ACK_WAIT_MS });
    try {
      const app = `ak_t${++appN}`;
      await producer.enqueue(app, [trigger(app, 'u1')]);
      const held = await until('one node claimed it', () => {
        const got = [...a.claimDue([[app, 1]], Date.now()), ...b.claimDue([[app, 1]], Date.now())];
        return got.length > 0 && got;
      }, 10_000, 25);
      assert.equal(held.length, 1);
      const [owner, other] = a.leased() ? [a, b] : [b, a];
      // A real protocol wait: the ack wait is the NATS server's timer, in its own process and on
      // its own clock, so no clock of ours can move it. Held past two of them (as a bucket batch
      // is held for its window), the claim must stay with its node: checked at every poll.
      const heldAt = performance.now();
      await until('two ack waits passed with the claim held', () => {
        assert.equal(other.claimDue([[app, 1]], Date.now()).length, 0, 'not handed out twice while held');
        return performance.now() - heldAt > 2 * ACK_WAIT_MS + 500;
      }, 30_000, 100);
      await owner.close(); // gone without settling, as after a kill -9
      const [again] = await claim(other, app, 1);
      assert.equal(again?.id, held[0].id, 'the other node gets it');
      assert.equal(again.attempts, 2);
      await other.ack([again]);
    } finally {
      await a.close().catch(() => {});
      await b.close().catch(() => {});
      await producer.close();
    }
  });
});
