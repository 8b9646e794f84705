/**
 * Detection requests for tests, near real venues of the bundled Monaco store (OpenStreetMap).
 * Times are fixed so that answers are comparable across runs.
 */
import { stampAfter } from './stamps.js';

/** Place du Casino, Monte-Carlo. */
export const CASINO = { lat: 43.73976, long: 7.42766 };

export function fixes(at: { lat: number; long: number }, start: string, minutes: number[], offset = '+02:00') {
  return minutes.map((m, i) => ({
    timestamp: stampAfter(`${start}:00:00${offset}`, m),
    location: { lat: at.lat + (i % 3 - 1) * 0.00005, long: at.long + (i % 2) * 0.00005, accuracy: 20, speed: 0.1, altitude: 20 },
  }));
}

/** A structured request: one 25-minute visit event and one transit event. */
export function visitRequest(): any {
  return {
    request_id: 'req-1',
    advertising_id: 'ad-1',
    user_id: 'user-1',
    os: 'iOS',
    custom_data: { plan: 'gold' },
    events: [
      {
        event_id: 'ev-1', type: 'visit', start_time: '2024-05-06T07:25:00+02:00', end_time: '2024-05-06T07:50:00+02:00',
        data: fixes(CASINO, '2024-05-06T07', [27, 31, 35, 40, 45]),
      },
      {
        event_id: 'ev-2', type: 'transit', start_time: '2024-05-06T07:50:00+02:00', end_time: '2024-05-06T07:58:00+02:00',
        data: [
          { timestamp: '2024-05-06T07:51:00+02:00', location: { lat: 43.7380, long: 7.4240, accuracy: 10, speed: 12 } },
          { timestamp: '2024-05-06T07:55:00+02:00', location: { lat: 43.7350, long: 7.4200, accuracy: 10, speed: 13 } },
        ],
      },
    ],
  };
}
