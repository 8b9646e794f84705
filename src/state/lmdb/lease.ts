/** Embedded: one process owns the data directory (data-dir-lock.ts), so it always holds every lease. */
import type { LeaseState } from '../types.js';

export const soleLease = (): LeaseState => ({ hold: async () => true });
