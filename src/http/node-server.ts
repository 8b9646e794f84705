/**
 * The HTTP server on node:http, for a Node that uWebSockets.js has no native build for (listen.ts):
 * the Wire's calls with uWS's meaning. The registry's uWebSockets.js brings a JavaScript stand-in
 * of its own on such a Node, but it lacks calls Dwell makes (getCaseSensitiveMethod, forEach),
 * reads queries wrongly, reports every closed response as aborted and cuts the connection under
 * an answer it has just written; this is the same work done on node:http directly.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Chunk, HttpListener, OnRequest, RequestHead, Wire } from './wire.js';

/** uWS closes a connection idle for 10 s; between requests this does the same. */
const KEEP_ALIVE_MS = 10_000;
const NO_BYTES = new ArrayBuffer(0);

class NodeHead implements RequestHead {
  readonly method: string;
  readonly url: string;
  readonly query: string;

  constructor(private readonly req: IncomingMessage) {
    this.method = req.method ?? '';
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    this.url = q < 0 ? target : target.slice(0, q);
    this.query = q < 0 ? '' : target.slice(q + 1);
  }

  header(name: string): string {
    const v = this.req.headers[name];
    return v === undefined ? '' : Array.isArray(v) ? v.join(', ') : v;
  }
}

class NodeWire implements Wire {
  constructor(private readonly req: IncomingMessage, private readonly res: ServerResponse) {
    // A client that goes mid-body makes the request emit an error: that is onAborted's news.
    req.on('error', () => {});
    res.on('error', () => {});
  }

  onAborted(handler: () => void): void {
    // 'close' comes after every response; only one that never ended was aborted.
    this.res.once('close', () => { if (!this.res.writableEnded) handler(); });
  }

  onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): void {
    this.req.on('data', (b: Buffer) => handler(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer, false));
    this.req.once('end', () => handler(NO_BYTES, true));
  }

  cork(fn: () => void): void {
    this.res.cork();
    try {
      fn();
    } finally {
      this.res.uncork();
    }
  }

  writeStatus(status: string): void {
    const sp = status.indexOf(' ');
    this.res.statusCode = Number(sp < 0 ? status : status.slice(0, sp));
    if (sp > 0) this.res.statusMessage = status.slice(sp + 1);
  }

  writeHeader(name: string, value: string): void {
    this.res.setHeader(name, value);
  }

  write(chunk: Chunk): void {
    this.res.write(chunk);
  }

  end(body?: Chunk, closeConnection = false): void {
    if (!closeConnection) return void this.res.end(body);
    // Before the head is sent, saying so makes node:http close once the answer is out; after
    // (an early answer, discard.ts), the connection is closed when the last byte has left.
    if (!this.res.headersSent) return void this.res.setHeader('Connection', 'close').end(body);
    const socket: Socket | null = this.res.socket;
    this.res.end(body, () => socket?.destroy());
  }
}

export function listenNode(host: string, port: number, onRequest: OnRequest): Promise<HttpListener> {
  // uWS answers a request without a Host header too.
  const server = http.createServer({ requireHostHeader: false }, (req, res) => onRequest(new NodeWire(req, res), new NodeHead(req)));
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  return new Promise((resolve, reject) => {
    const refused = (err: Error) => reject(new Error(`cannot listen on ${host}:${port} (${err.message})`));
    server.once('error', refused);
    server.listen(port, host, () => {
      server.off('error', refused);
      resolve({ port: (server.address() as AddressInfo).port, implementation: 'node:http', stop: () => void server.close() });
    });
  });
}
