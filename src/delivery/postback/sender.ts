/**
 * Sends one signed postback and says how it went. One undici Agent holds a keep-alive Pool per
 * origin; the per-app cap on concurrent sends lives in the dispatcher, so here the pools only
 * bound sockets per origin. Nothing here touches the outbox.
 *
 * At thousands of sends a second the per-request overhead counts, so this uses undici's
 * `dispatch` with a small handler (no response stream, promise chain or AbortController per
 * request) and one timer for every deadline: sends start in order with the same timeout, so
 * their deadlines are in order too, and the timer only ever waits for the oldest.
 */
import type { Agent, Dispatcher } from 'undici';
import type { Payload } from '../outbox.js';
import { postbackRequest, signedPathTemplate, signPostback } from './sign.js';
import { checkTarget, guardConnect, guardedLookup, RefusedTarget } from '../../net/address-guard.js';
import { Deadlines } from './deadlines.js';
import { wallNow } from '../../time/wall.js';

export type Outcome = 'success' | 'http_error' | 'timeout' | 'network_error' | 'refused';

export interface SendResult {
  outcome: Outcome;
  /** For anything but success: what was expected and what happened, kept as the entry's last_error. */
  error?: string;
}

export interface SenderOptions {
  allowPrivate: boolean;
  /** A 2xx must arrive within this, ms (contract §3: 10 s). */
  timeoutMs?: number;
  /** Sockets per origin. */
  connectionsPerOrigin?: number;
  /** Requests in flight per socket (HTTP/1.1 pipelining); 1 = none. */
  pipelining?: number;
  /** For tests: the DNS lookup the private-address guard wraps. */
  resolve?: Parameters<typeof guardedLookup>[0];
}

/** Answer bytes read before the connection is dropped instead (we only need the status). */
const ANSWER_LIMIT = 64 << 10;

interface Target { origin: string; url: URL; path?: (timestampS: number, signature: string) => string }

export class PostbackSender {
  /**
   * Made by the first send, with undici loaded then: loading it cost every delivery worker's start
   * ~0.1 s of CPU (node -e "import('undici')" 0.17 s user+sys, a bare node 0.06), and a node
   * whose apps all use buckets, or a test's server that sends no postback, never needs it.
   */
  private agent: Agent | Promise<Agent> | null = null;
  private readonly timeoutMs: number;
  private readonly urls = new Map<string, Target | RefusedTarget>();
  private readonly deadlines: Deadlines<Send>;

  constructor(private readonly opts: SenderOptions) {
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.deadlines = new Deadlines(this.timeoutMs, (s) => s.timeOut());
  }

  private makeAgent(): Promise<Agent> {
    const { opts } = this;
    return import('undici').then(({ Agent, buildConnector }) => (this.agent = new Agent({
      connections: opts.connectionsPerOrigin ?? 64,
      pipelining: opts.pipelining ?? 1,
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 60_000,
      headersTimeout: 0, // the overall deadline covers headers and body together
      bodyTimeout: 0,
      connect: opts.allowPrivate ? { timeout: this.timeoutMs } : guardConnect(buildConnector({ timeout: this.timeoutMs, lookup: guardedLookup(opts.resolve) })),
    })), (err) => {
      this.agent = null; // tried again by the next send
      throw err;
    });
  }

  send(url: string, secret: string, payload: Payload, nowMs = wallNow()): Promise<SendResult> {
    let t: Target;
    try {
      t = this.target(url);
    } catch (err) {
      return Promise.resolve({ outcome: 'refused', error: (err as Error).message });
    }
    const agent = (this.agent ??= this.makeAgent());
    if (agent instanceof Promise) {
      return agent.then(() => this.send(url, secret, payload, nowMs), (err) => ({ outcome: 'network_error' as const, error: `could not load the HTTP client: ${(err as Error)?.message ?? err}` }));
    }
    const ts = Math.floor(nowMs / 1000);
    const path = t.path ? t.path(ts, signPostback(secret, ts, payload.body)) : pathOf(postbackRequest(t.url, secret, payload, nowMs).url);
    return new Promise((resolve) => {
      const s = new Send(resolve, this.timeoutMs, t.url.host, (done) => this.deadlines.remove(done));
      this.deadlines.add(s);
      agent.dispatch({
        origin: t.origin, path, method: 'POST', body: payload.body,
        headers: ['content-type', 'application/json', 'x-trigger-id', payload.id, 'user-agent', 'Dwell-Postback/1'],
      }, s);
    });
  }

  async close(): Promise<void> {
    this.deadlines.close();
    const agent = await Promise.resolve(this.agent).catch(() => null);
    await agent?.destroy();
  }

  /** Parsed, checked and templated once per distinct URL string (apps change URLs rarely). */
  private target(url: string): Target {
    let t = this.urls.get(url);
    if (!t) {
      try {
        const u = checkTarget(url, this.opts.allowPrivate);
        t = { origin: u.origin, url: u, path: signedPathTemplate(u) };
      } catch (err) {
        t = err as RefusedTarget;
      }
      if (this.urls.size > 10_000) this.urls.clear();
      this.urls.set(url, t);
    }
    if (t instanceof RefusedTarget) throw t;
    return t;
  }
}

/** One request's handler (undici's dispatch interface): settles once, by answer, error or deadline. */
class Send implements Dispatcher.DispatchHandler {
  private status = 0;
  private bytes = 0;
  private settled = false;
  private abort: ((err?: Error) => void) | undefined;

  constructor(private readonly resolve: (r: SendResult) => void, private readonly timeoutMs: number, private readonly host: string, private readonly done: (s: Send) => void) {}

  onConnect(abort: (err?: Error) => void): void {
    if (this.settled) abort(new Error('postback deadline passed before it was sent'));
    else this.abort = abort;
  }

  onHeaders(statusCode: number): boolean {
    this.status = statusCode;
    return true;
  }

  /** The answer is read (or, past the limit, the connection dropped) so the socket is reused. */
  onData(chunk: Buffer): boolean {
    this.bytes += chunk.length;
    if (this.bytes > ANSWER_LIMIT) {
      this.finish(this.byStatus());
      this.abort?.(new Error('postback answer too long; connection dropped'));
    }
    return true;
  }

  onComplete(): void {
    this.finish(this.byStatus());
  }

  onError(err: Error): void {
    if (this.settled) return;
    const refused = findRefused(err);
    if (refused) return this.finish({ outcome: 'refused', error: refused.message });
    const e = err as NodeJS.ErrnoException;
    this.finish({ outcome: 'network_error', error: `could not deliver to ${this.host}: ${e.code ? e.code + ' ' : ''}${e.message}` });
  }

  timeOut(): void {
    if (this.settled) return;
    this.finish({ outcome: 'timeout', error: `no 2xx answer within ${this.timeoutMs / 1000} s` });
    this.abort?.(new Error('postback deadline passed'));
  }

  private byStatus(): SendResult {
    if (this.status >= 200 && this.status < 300) return { outcome: 'success' };
    return { outcome: 'http_error', error: `expected a 2xx answer, got HTTP ${this.status}` };
  }

  private finish(r: SendResult): void {
    if (this.settled) return;
    this.settled = true;
    this.done(this);
    this.resolve(r);
  }
}

function pathOf(url: string): string {
  const u = new URL(url);
  return u.pathname + u.search;
}

function findRefused(err: unknown): RefusedTarget | undefined {
  for (let e = err as { cause?: unknown } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i++) {
    if (e instanceof RefusedTarget || (e as { code?: string }).code === 'DWELL_REFUSED_TARGET') return e as RefusedTarget;
  }
  return undefined;
}
