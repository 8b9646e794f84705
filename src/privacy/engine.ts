/**
 * Privacy over the state kit, whichever engine it is: what erase, export and app deletion reach
 * of a user's records (records.ts, through the kit's kinds), and retention, the kit's own where it
 * has one (StateKit.retention: the embedded kit's thread), else the lease holder's sweep
 * (retention-lease.ts). Built once, in server/node-state.ts; service.ts runs it.
 */
import type { RetentionContext, RetentionPlan, RetentionRun, StateKit } from '../state/types.js';
import type { UserRecords } from './kinds.js';
import { kitRecords } from './records.js';
import { leaseRetention } from './retention-lease.js';

export type { RetentionPlan };
export type PrivacyContext = RetentionContext;

/** What privacy runs: the records it reaches and its retention. */
export interface PrivacyRun extends RetentionRun {
  records: UserRecords;
}

export type PrivacyEngine = (ctx: PrivacyContext) => PrivacyRun;

export function kitPrivacy(kit: StateKit): PrivacyEngine {
  const records = kitRecords(kit);
  return (ctx) => ({ records, ...(kit.retention ? kit.retention(ctx) : leaseRetention(kit, ctx)) });
}
