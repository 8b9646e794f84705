/**
 * Writing answers to the HTTP server's responses (wire.ts). Every answer goes through `send`,
 * which corks, respects an aborted connection, and records the route's status and latency. An answer given
 * while the body is still arriving (a refusal before reading it) is written at once and the rest
 * of the body read and discarded (discard.ts), so the client sees the answer, not a reset.
 * Each exchange has a request id (the caller's X-Request-Id when it is a sane token, else a new
 * UUID), answered as X-Request-Id and carried by every log line written while it is handled.
 */
import { asDwellError, DwellError } from '../errors.js';
import { randomUUID } from 'node:crypto';
import { log, withRequestId } from '../log.js';
import type { Metrics } from './metrics.js';
import { discardRest } from './discard.js';
import type { RequestHead, Wire } from './wire.js';

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK', 201: '201 Created', 202: '202 Accepted', 400: '400 Bad Request', 401: '401 Unauthorized',
  403: '403 Forbidden', 404: '404 Not Found', 405: '405 Method Not Allowed', 413: '413 Payload Too Large',
  415: '415 Unsupported Media Type', 429: '429 Too Many Requests', 500: '500 Internal Server Error',
  503: '503 Service Unavailable',
};

/** `body` is serialised as JSON, except a string with its own contentType or bytes (JSON already encoded). */
export interface Reply { status: number; body: unknown; contentType?: string; headers?: Record<string, string> }

/** Letters, digits and `._:=/+-`, up to 128: UUIDs, ULIDs and tracing ids pass; nothing that could split a header or a log line. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:=/+-]{1,128}$/;

/** One request's state. */
export class Exchange {
  aborted = false;
  done = false;
  readonly started = process.hrtime.bigint();
  readonly method: string;
  readonly url: string;
  readonly query: string;
  readonly requestId: string;
  /** Body bytes received so far, and whether the last chunk has arrived. */
  bodyBytes = 0;
  bodyEnded = false;
  private bodyReader: ((chunk: ArrayBuffer, isLast: boolean) => void) | null = null;

  constructor(readonly res: Wire, private readonly head: RequestHead, readonly route: string, private readonly metrics: Metrics,
    private readonly onFinish?: () => void) {
    this.method = head.method;
    this.url = head.url;
    this.query = head.query;
    const given = this.header('x-request-id');
    this.requestId = SANE_REQUEST_ID.test(given) ? given : randomUUID();
    // The server calls these from outside the request's async context: re-entered here.
    res.onAborted(() => this.run(() => {
      this.aborted = true;
      this.finish(499);
    }));
    // Always listened to (every request ends, bodiless ones too, with a last chunk), so the
    // exchange knows whether a body is still arriving whoever reads it, and when.
    res.onData((chunk, isLast) => {
      this.bodyBytes += chunk.byteLength;
      if (isLast) this.bodyEnded = true;
      if (this.bodyReader) this.run(() => this.bodyReader?.(chunk, isLast));
    });
    if (log.enabled('debug')) this.run(() => log.debug('request', { method: this.method, route }));
  }

  /** Runs `fn` as part of this request: its log lines carry the request id. */
  run<T>(fn: () => T): T {
    return withRequestId(this.requestId, fn);
  }

  /** Hands the body's chunks to `reader`, instead of any earlier one. Call before they arrive. */
  onBody(reader: (chunk: ArrayBuffer, isLast: boolean) => void): void {
    this.bodyReader = reader;
  }

  /** A body was announced and has not all arrived. */
  get bodyPending(): boolean {
    return !this.bodyEnded && (Number(this.header('content-length') || 0) > 0 || this.header('transfer-encoding') !== '');
  }

  header(name: string): string {
    return this.head.header(name);
  }

  /** Path and query exactly as sent: what the signature covers. */
  get pathAndQuery(): string {
    return this.query ? `${this.url}?${this.query}` : this.url;
  }

  /** Answers; `closeConnection` closes it afterwards (once any body still arriving is read). */
  send(r: Reply, closeConnection = false): void {
    if (this.aborted || this.done) return;
    const body = r.body instanceof Uint8Array || (typeof r.body === 'string' && r.contentType) ? r.body as Uint8Array | string : JSON.stringify(r.body);
    const early = this.bodyPending;
    this.res.cork(() => {
      this.res.writeStatus(STATUS_TEXT[r.status] ?? String(r.status));
      this.res.writeHeader('Content-Type', r.contentType ?? 'application/json');
      this.res.writeHeader('X-Request-Id', this.requestId);
      for (const [k, v] of Object.entries(r.headers ?? {})) this.res.writeHeader(k, v);
      if (!early) return void this.res.end(body, closeConnection); // the server says Connection: close itself
      // Early: the head and body go now, as one chunk; the response ends once the request's body
      // has been read (discard.ts), when it is too late for the server to announce the close.
      if (closeConnection) this.res.writeHeader('Connection', 'close');
      this.res.write(body);
    });
    this.finish(r.status);
    if (early) discardRest(this, closeConnection);
  }

  fail(err: unknown, closeConnection = false): void {
    const e = asDwellError(err);
    if (e.code === 'internal') this.run(() => log.error('request failed', { route: this.route, error: String((err as Error)?.stack ?? err) }));
    const headers: Record<string, string> = {};
    if (e.retryAfter !== undefined) headers['Retry-After'] = String(e.retryAfter);
    this.send({ status: e.status, body: e.toJSON(), headers }, closeConnection);
  }

  private finish(status: number): void {
    if (this.done) return;
    this.done = true;
    const seconds = Number(process.hrtime.bigint() - this.started) / 1e9;
    this.metrics.requests.inc({ route: this.route, status: String(status) });
    this.metrics.latency.observe({ route: this.route }, seconds);
    if (log.enabled('debug')) this.run(() => log.debug('answered', { method: this.method, route: this.route, status, ms: Math.round(seconds * 1e6) / 1e3 }));
    this.onFinish?.();
  }
}

export { DwellError };
