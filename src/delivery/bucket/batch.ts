/**
 * One app's batch of triggers on its way to a bucket: JSON lines kept as the outbox's bytes (never
 * decoded), closed when the oldest trigger has waited a window or the lines reach the byte cap
 * (contract §3).
 */
import { promisify } from 'node:util';
import { gzip as gzipCb, constants } from 'node:zlib';
import type { OutboxEntry } from '../outbox.js';

const gzip = promisify(gzipCb);
const NEWLINE = Buffer.from('\n');

/** Enough of an entry to ack, retry or kill it, and to know its age. */
export type EntryKey = Pick<OutboxEntry, 'app_key' | 'id' | 'created_at'>;

export class Batch {
  readonly keys: EntryKey[] = [];
  private readonly lines: Buffer[] = [];
  /** Bytes of the uncompressed JSON lines, newlines included. */
  bytes = 0;
  /** created_at of the oldest trigger: the window runs from it, so a retried batch closes at once. */
  oldest = Infinity;

  /** When the batch was closed: its object's hour partition and timestamp. */
  closedAt = 0;

  constructor(readonly appKey: string) {}

  get size(): number {
    return this.keys.length;
  }

  /** False when the line does not fit under `maxBytes` (an empty batch takes any line). */
  add(entry: OutboxEntry, maxBytes: number): boolean {
    const n = entry.body.length + 1;
    if (this.keys.length > 0 && this.bytes + n > maxBytes) return false;
    this.lines.push(entry.body, NEWLINE);
    this.keys.push({ app_key: entry.app_key, id: entry.id, created_at: entry.created_at });
    this.bytes += n;
    this.oldest = Math.min(this.oldest, entry.created_at);
    return true;
  }

  dueAt(windowMs: number): number {
    return this.oldest + windowMs;
  }

  /** Gzip runs on the libuv pool, off the event loop; level 6 is zlib's default balance. */
  encode(): Promise<Buffer> {
    return gzip(Buffer.concat(this.lines, this.bytes), { level: constants.Z_DEFAULT_COMPRESSION });
  }
}
