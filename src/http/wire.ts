/**
 * What the rest of Dwell sees of an HTTP server, whichever runs (listen.ts picks one at start):
 * a request's head, copied out when it arrives, and a response to write to. The response is the
 * part of uWebSockets.js's HttpResponse that Dwell uses, so the native one is handed over as it
 * is; node-server.ts gives the same calls on node:http, with the same meaning.
 */

/** A request's method, path and headers, readable after the request handler has returned. */
export interface RequestHead {
  /** Upper case. */
  readonly method: string;
  /** The path as sent, without the query. */
  readonly url: string;
  /** The query as sent, without the `?`; '' when there is none. */
  readonly query: string;
  /** A header's value by its lower-case name; '' when absent. */
  header(name: string): string;
}

export type Chunk = string | Uint8Array;

/** uWebSockets.js semantics: see its HttpResponse. */
export interface Wire {
  /** Called once if the connection goes before `end`: the response must then not be touched. */
  onAborted(handler: () => void): unknown;
  /**
   * The body's chunks (valid only during the call), the last one with isLast (bodiless requests
   * too: one empty last chunk). Set once, when the request arrives.
   */
  onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): unknown;
  /** The writes in `fn` leave in as few packets as possible. */
  cork(fn: () => void): unknown;
  /** `'413 Payload Too Large'`: first, before any header. */
  writeStatus(status: string): unknown;
  writeHeader(name: string, value: string): unknown;
  /** Sends the head (chunked, when it has no length) and this part of the body now. */
  write(chunk: Chunk): unknown;
  /** The last part of the body; `closeConnection` closes the connection once it is sent. */
  end(body?: Chunk, closeConnection?: boolean): unknown;
}

export type OnRequest = (res: Wire, head: RequestHead) => void;

export interface HttpListener {
  readonly port: number;
  /** Which server runs: uWebSockets.js's native build, or node:http where there is none. */
  readonly implementation: 'uWebSockets.js' | 'node:http';
  /** Stops taking connections; requests already in progress go on. */
  stop(): void;
}
