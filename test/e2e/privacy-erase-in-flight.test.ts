/**
 * Erasing a user while their detections are in flight (contract §7): the erase waits for the
 * app's requests that started before it (apps/in-flight.ts), so none of them stores the user's
 * visit after the erase has answered. Embedded only: a cluster node does not wait for another
 * node's requests (docs/api.md §7).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withDwellApp } from '../helpers/dwell.js';
import { signed } from '../helpers/client.js';
import { CASINO, fixes } from '../helpers/requests.js';

const USER = 'ad-in-flight';
/** A visit at the casino on the `day`-th day after 2024-05-01: every request its own visit. */
function visitOn(day: number) {
  const date = new Date(Date.UTC(2024, 4, 1 + day)).toISOString().slice(0, 10);
  return {
    advertising_id: USER,
    events: [{
      event_id: `ev-${day}`, type: 'visit', start_time: `${date}T07:25:00+02:00`, end_time: `${date}T07:50:00+02:00`,
      data: fixes(CASINO, `${date}T07`, [27, 31, 35, 40, 45]),
    }],
  };
}

test('a user erased while their detections are in flight keeps nothing of them', async () => {
  // One worker: the forty detections queue behind each other while their bodies were all read
  // at once, so the erase sent after the first answer finds the rest in flight.
  await withDwellApp({ DWELL_WORKERS: '1' }, async (dwell) => {
    const app = dwell.app;
    const sent = Array.from({ length: 40 }, (_, i) => signed(dwell.url, app, '/v1/detect', visitOn(i)));
    await Promise.race(sent);
    const erase = await signed(dwell.url, app, `/v2/apps/${app.app_key}/users/erase`, { advertising_id: USER });
    assert.equal(erase.status, 200, JSON.stringify(erase.body));
    const answers = await Promise.all(sent);
    for (const r of answers) assert.equal(r.status, 200, JSON.stringify(r.body));
    const ex = await signed(dwell.url, app, `/v2/apps/${app.app_key}/users/export?advertising_id=${USER}`);
    assert.equal(ex.status, 200);
    const [user] = ex.body.users;
    assert.deepEqual({ record: user.record, recent: user.recent_detections.length }, { record: null, recent: 0 },
      `stored after the erase: ${user.record?.visit_history?.length ?? 0} places in the history, ${user.recent_detections.length} recent detections`);
  });
});
