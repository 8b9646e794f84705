/**
 * Explain mode (issue 19): a detection run exactly as /v1/detect runs it, with its rankings
 * recorded (rank-recorder.ts) and nothing stored (read-only-users.ts). Each located visit of the
 * answer is paired with the ranking that named it: rankings happen once per located stay, in the
 * order the answer lists them (structured.ts, unstructured.ts), and the pairing is checked.
 */
import type { StructuredRequest, UnstructuredRequest } from '../../schemas/detect-request.js';
import type { SyncItem } from '../../schemas/visit.js';
import { DwellError } from '../../errors.js';
import type { DetectContext } from '../context.js';
import { detectStructured } from '../structured.js';
import { detectUnstructured } from '../unstructured.js';
import { recording } from '../rank-recorder.js';
import { ExplainCollector, type Ranking } from './collect.js';
import { readOnlyUsers } from './read-only-users.js';
import type { Checks } from '../../integrity/check.js';
import { evidenceOf, type Evidence } from '../../integrity/why.js';

export type { Ranking, ExplainedCandidate, Factor } from './collect.js';

export interface Explanation {
  kind: 'structured' | 'unstructured';
  /** What /v1/detect would answer for this body now (`data` of the synchronous response). */
  data: SyncItem[];
  /** Parallel to `data`: the ranking behind each visit, null for a transit or an unlocated visit. */
  rankings: Array<Ranking | null>;
  /** Contract §12: what each integrity flag of the request rests on (integrity/why.ts). */
  integrity: Evidence[];
}

export type ValidBody = { kind: 'structured'; body: StructuredRequest } | { kind: 'unstructured'; body: UnstructuredRequest };

export function explainDetect(valid: ValidBody, ctx: DetectContext): Explanation {
  const rec = new ExplainCollector();
  let checks: Checks | undefined;
  const quiet: DetectContext = { ...ctx, users: readOnlyUsers(ctx.users), onChecks: (c) => { checks = c; } };
  const data = recording(rec, () => (valid.kind === 'structured' ? detectStructured(valid.body, quiet) : detectUnstructured(valid.body, quiet)));
  const located = data.filter((d) => d.visit.place?.estimated_geolocation);
  if (located.length !== rec.rankings.length) throw new DwellError('internal', 'explain: rankings and visits do not pair');
  let k = 0;
  const rankings = data.map((d) => {
    if (!d.visit.place?.estimated_geolocation) return null;
    const r = rec.rankings[k++];
    const answered = (d.visit.place.venues ?? []).map((v) => v.id).join('\u0000');
    if (answered !== r.candidates.map((c) => c.id).join('\u0000')) throw new DwellError('internal', 'explain: a ranking does not match its visit');
    return r;
  });
  return { kind: valid.kind, data, rankings, integrity: checks ? evidenceOf(checks, ctx.now) : [] };
}
