/**
 * POST /admin/clock: moves the server's time forward (src/time/clock.ts), for tests of TTLs,
 * expiry, retention and backoff that would otherwise wait. Behind the admin token like every
 * admin call, and refused (403) unless the server was started with DWELL_TEST_CLOCK=1, which
 * is never set in production: time only moves forward, and what was due in between falls due
 * at once (the sweeps and the dispatcher are woken).
 */
import { DwellError } from '../errors.js';
import { AdvanceClock } from '../schemas/clock.js';
import { checkSchema } from '../schemas/check.js';
import { MovableClock, type Clock } from '../time/clock.js';
import type { AdminHandler } from './admin.js';

export function clockRoutes(clock: Clock): Array<[string, string, AdminHandler]> {
  return [['POST', '/admin/clock', (_deps, _p, body) => {
    if (!(clock instanceof MovableClock)) throw new DwellError('forbidden', 'the server\'s clock moves only when it was started with DWELL_TEST_CLOCK=1 (tests only, never in production)');
    const { advance_s } = checkSchema<AdvanceClock>(AdvanceClock, body);
    const now = clock.advance(advance_s * 1000);
    return { status: 200, body: { now: new Date(now).toISOString(), now_ms: now, offset_s: clock.offsetMs / 1000 } };
  }]];
}
