/**
 * Writing answers to uWebSockets.js responses. Every answer goes through `reply`, which corks,
 * respects an aborted connection, and records the route's status and latency.
 */
import type { HttpResponse, HttpRequest } from 'uWebSockets.js';
import { asDwellError, DwellError } from '../errors.js';
import { log } from '../log.js';
import type { Metrics } from './metrics.js';

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK', 201: '201 Created', 202: '202 Accepted', 400: '400 Bad Request', 401: '401 Unauthorized',
  403: '403 Forbidden', 404: '404 Not Found', 405: '405 Method Not Allowed', 413: '413 Payload Too Large',
  415: '415 Unsupported Media Type', 429: '429 Too Many Requests', 500: '500 Internal Server Error',
  503: '503 Service Unavailable',
};

/** `body` is serialised as JSON, except a string with its own contentType or bytes (JSON already encoded). */
export interface Reply { status: number; body: unknown; contentType?: string; headers?: Record<string, string> }

/** One request's state, copied out of the stack-allocated HttpRequest. */
export class Exchange {
  aborted = false;
  done = false;
  readonly started = process.hrtime.bigint();
  readonly method: string;
  readonly url: string;
  readonly query: string;
  private readonly headers = new Map<string, string>();

  constructor(readonly res: HttpResponse, req: HttpRequest, readonly route: string, private readonly metrics: Metrics,
    private readonly onFinish?: () => void) {
    this.method = req.getCaseSensitiveMethod().toUpperCase();
    this.url = req.getUrl();
    this.query = req.getQuery() ?? '';
    req.forEach((k, v) => this.headers.set(k, v));
    res.onAborted(() => {
      this.aborted = true;
      this.finish(499);
    });
  }

  header(name: string): string {
    return this.headers.get(name) ?? '';
  }

  /** Path and query exactly as sent: what the signature covers. */
  get pathAndQuery(): string {
    return this.query ? `${this.url}?${this.query}` : this.url;
  }

  send(r: Reply, closeConnection = false): void {
    if (this.aborted || this.done) return;
    const body = r.body instanceof Uint8Array || (typeof r.body === 'string' && r.contentType) ? r.body as Uint8Array | string : JSON.stringify(r.body);
    this.res.cork(() => {
      this.res.writeStatus(STATUS_TEXT[r.status] ?? String(r.status));
      this.res.writeHeader('Content-Type', r.contentType ?? 'application/json');
      for (const [k, v] of Object.entries(r.headers ?? {})) this.res.writeHeader(k, v);
      this.res.end(body, closeConnection);
    });
    this.finish(r.status);
  }

  fail(err: unknown, closeConnection = false): void {
    const e = asDwellError(err);
    if (e.code === 'internal') log.error('request failed', { route: this.route, error: String((err as Error)?.stack ?? err) });
    const headers: Record<string, string> = {};
    if (e.retryAfter !== undefined) headers['Retry-After'] = String(e.retryAfter);
    this.send({ status: e.status, body: e.toJSON(), headers }, closeConnection);
  }

  private finish(status: number): void {
    if (this.done) return;
    this.done = true;
    this.metrics.requests.inc({ route: this.route, status: String(status) });
    this.metrics.latency.observe({ route: this.route }, Number(process.hrtime.bigint() - this.started) / 1e9);
    this.onFinish?.();
  }
}

export { DwellError };
