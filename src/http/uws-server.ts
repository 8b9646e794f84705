/**
 * The HTTP server on uWebSockets.js's native build: its HttpResponse is the Wire as it is, and the
 * request's head is copied out before the handler returns (uWS's HttpRequest lives on the stack).
 */
import type { HttpRequest, us_socket } from 'uWebSockets.js';
import type { HttpListener, OnRequest, RequestHead } from './wire.js';

export type Uws = typeof import('uWebSockets.js');

class UwsHead implements RequestHead {
  readonly method: string;
  readonly url: string;
  readonly query: string;
  private readonly headers = new Map<string, string>();

  constructor(req: HttpRequest) {
    this.method = req.getCaseSensitiveMethod().toUpperCase();
    this.url = req.getUrl();
    this.query = req.getQuery() ?? '';
    req.forEach((k, v) => this.headers.set(k, v));
  }

  header(name: string): string {
    return this.headers.get(name) ?? '';
  }
}

export function listenUws(uws: Uws, host: string, port: number, onRequest: OnRequest): Promise<HttpListener> {
  const app = uws.App().any('/*', (res, req) => onRequest(res, new UwsHead(req)));
  return new Promise((resolve, reject) => {
    app.listen(host, port, (socket) => {
      if (!socket) return reject(new Error(`cannot listen on ${host}:${port}`));
      resolve({
        port: uws.us_socket_local_port(socket as unknown as us_socket),
        implementation: 'uWebSockets.js',
        stop: () => uws.us_listen_socket_close(socket),
      });
    });
  });
}
