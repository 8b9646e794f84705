/**
 * The embedded engine's lease (state/types.ts LeaseState): the data directory has one owner, the
 * process holding its lock (data-dir-lock.ts), and work that runs once per data directory runs
 * there; every opening in that process holds every lease.
 */
import type { LeaseState } from '../types.js';

export const ownerLease: LeaseState = { hold: async () => true };
