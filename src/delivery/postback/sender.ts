/**
 * Sends one signed postback and says how it went. One undici Agent holds a keep-alive Pool per
 * origin; the per-app cap on concurrent sends lives in the dispatcher, so here the pools only
 * bound sockets per origin. Nothing here touches the outbox.
 */
import { Agent, request } from 'undici';
import type { Payload } from '../outbox.js';
import { postbackRequest } from './sign.js';
import { checkTarget, guardedLookup, RefusedTarget } from './guard.js';

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
  /** For tests: the DNS lookup the private-address guard wraps. */
  resolve?: Parameters<typeof guardedLookup>[0];
}

export class PostbackSender {
  private readonly agent: Agent;
  private readonly timeoutMs: number;
  private readonly urls = new Map<string, URL | RefusedTarget>();

  constructor(private readonly opts: SenderOptions) {
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.agent = new Agent({
      connections: opts.connectionsPerOrigin ?? 64,
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 60_000,
      headersTimeout: 0, // the overall deadline below covers headers and body together
      bodyTimeout: 0,
      connect: { timeout: this.timeoutMs, ...(opts.allowPrivate ? {} : { lookup: guardedLookup(opts.resolve) }) },
    });
  }

  async send(url: string, secret: string, payload: Payload, nowMs = Date.now()): Promise<SendResult> {
    let target: URL;
    try {
      target = this.target(url);
    } catch (err) {
      return { outcome: 'refused', error: (err as Error).message };
    }
    const req = postbackRequest(target, secret, payload, nowMs);
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), this.timeoutMs);
    try {
      const res = await request(req.url, { method: 'POST', headers: req.headers, body: req.body, dispatcher: this.agent, signal: abort.signal });
      await res.body.dump({ limit: 64 << 10 }); // read (or drop) the answer so the socket is reused
      if (res.statusCode >= 200 && res.statusCode < 300) return { outcome: 'success' };
      return { outcome: 'http_error', error: `expected a 2xx answer, got HTTP ${res.statusCode}` };
    } catch (err) {
      if (abort.signal.aborted) return { outcome: 'timeout', error: `no 2xx answer within ${this.timeoutMs / 1000} s` };
      const refused = findRefused(err);
      if (refused) return { outcome: 'refused', error: refused.message };
      const e = err as NodeJS.ErrnoException;
      return { outcome: 'network_error', error: `could not deliver to ${target.host}: ${e.code ? e.code + ' ' : ''}${e.message}` };
    } finally {
      clearTimeout(timer);
    }
  }

  close(): Promise<void> {
    return this.agent.destroy();
  }

  /** Parsed and checked once per distinct URL string (apps change URLs rarely). */
  private target(url: string): URL {
    let t = this.urls.get(url);
    if (!t) {
      try {
        t = checkTarget(url, this.opts.allowPrivate);
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

function findRefused(err: unknown): RefusedTarget | undefined {
  for (let e = err as { cause?: unknown } | undefined, i = 0; e && i < 5; e = e.cause as typeof e, i++) {
    if (e instanceof RefusedTarget || (e as { code?: string }).code === 'DWELL_REFUSED_TARGET') return e as RefusedTarget;
  }
  return undefined;
}
