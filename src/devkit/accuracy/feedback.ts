/**
 * `bench:accuracy --feedback FRACTION` (issue 33): which visits get the true answer as feedback
 * right after their detection (contract §10), the feedback itself, and the truth to score the other
 * visits by. The share is drawn per visit event by a hash of its ids, so the same visits are chosen
 * in every run and by every commit; only visits of a user can be given feedback.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { bodySha256, signature } from '../../signing.js';
import { wallNow } from '../../time/wall.js';

export interface TruthRow { request_id: string; event_id: string; type: string; venue_id: string | null; user: string | null; scored: boolean }

const key = (requestId: string, eventId: string) => `${requestId}|${eventId}`;

/** A number in [0, 1) fixed by the visit's ids. */
const draw = (k: string) => createHash('sha256').update(k).digest().readUInt32BE(0) / 2 ** 32;

export function readTruth(dir: string): TruthRow[] {
  return fs.readFileSync(path.join(dir, 'truth.jsonl'), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as TruthRow);
}

/** The visits to give feedback, by `request_id|event_id`, with their true venue. */
export function chooseVisits(truth: readonly TruthRow[], fraction: number): Map<string, string> {
  const out = new Map<string, string>();
  for (const t of truth) {
    const k = key(t.request_id, t.event_id);
    if (t.type === 'visit' && t.user && t.venue_id && draw(k) < fraction) out.set(k, t.venue_id);
  }
  return out;
}

/**
 * A truth directory in which the chosen visits are not scored (the rest as vdsim wrote it), for
 * `vdsim score`: both runs are scored on the same other visits.
 */
export function truthWithout(dir: string, chosen: ReadonlyMap<string, string>, out: string): string {
  fs.mkdirSync(out, { recursive: true });
  const rows = readTruth(dir).map((t) => (chosen.has(key(t.request_id, t.event_id)) ? { ...t, scored: false } : t));
  fs.writeFileSync(path.join(out, 'truth.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  fs.copyFileSync(path.join(dir, 'meta.json'), path.join(out, 'meta.json'));
  for (const f of ['requests.jsonl', 'requests.jsonl.gz']) if (fs.existsSync(path.join(dir, f))) fs.symlinkSync(path.resolve(dir, f), path.join(out, f));
  return out;
}

export interface FeedbackTally { confirm: number; wrong_venue: number; refused: number }

/** Sends the true answer for the chosen visits of one detection answer; signed as any request. */
export async function sendFeedback(url: string, app: { app_key: string; app_secret: string }, body: { request_id?: string; advertising_id?: string; user_id?: string },
  response: { data?: Array<{ event_id?: string; visit?: { id: string; place?: { id?: string } | null } }> }, chosen: ReadonlyMap<string, string>, tally: FeedbackTally): Promise<void> {
  for (const item of response.data ?? []) {
    const truth = item.event_id !== undefined ? chosen.get(key(body.request_id ?? '', item.event_id)) : undefined;
    const placeId = item.visit?.place?.id;
    if (!truth || !placeId) continue;
    const fb = placeId === truth ? { type: 'confirm' } : { type: 'wrong_venue', venue_id: truth };
    const bytes = Buffer.from(JSON.stringify({ advertising_id: body.advertising_id, user_id: body.user_id, ...fb }));
    const p = `/v2/apps/${app.app_key}/visits/${encodeURIComponent(item.visit!.id)}/feedback`;
    const ts = String(Math.floor(wallNow() / 1000));
    const res = await fetch(url + p, {
      method: 'POST', body: bytes,
      headers: { 'x-app-key': app.app_key, 'x-timestamp': ts, 'x-signature': signature(app.app_secret, ts, 'POST', p, bodySha256(bytes)), 'content-type': 'application/json' },
    });
    await res.arrayBuffer();
    if (res.status === 200) tally[fb.type as 'confirm' | 'wrong_venue']++;
    else tally.refused++;
  }
}
