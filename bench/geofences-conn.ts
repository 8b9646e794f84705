/** The geofence benchmarks' HTTP client (bench/geofences.ts, geofences-bulk.ts). */
import { connect, type Socket } from 'node:net';

/**
 * A keep-alive HTTP/1.1 connection, one request at a time, answers read by Content-Length. The
 * load generator shares the cores with the server: undici's per-request machinery cost about as
 * much CPU as the server's whole create, so it capped the rate it meant to measure. (Not
 * pipelined: the server leaves a connection unanswered when a request arrives behind a POST.)
 */
export class Conn {
  private readonly sock: Socket;
  private readonly waiting: Array<(r: [number, string]) => void> = [];
  private buf: Buffer = Buffer.alloc(0);
  constructor(port: number) {
    this.sock = connect({ port, host: '127.0.0.1', noDelay: true });
    this.sock.on('data', (chunk: Buffer) => this.read(chunk));
    this.sock.on('error', () => { for (const w of this.waiting.splice(0)) w([0, '']); });
  }
  send(head: string, body: Buffer): Promise<[number, string]> {
    this.sock.write(Buffer.concat([Buffer.from(head), body]));
    return new Promise((resolve) => this.waiting.push(resolve));
  }
  close(): void { this.sock.end(); }
  private read(chunk: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    for (;;) {
      const end = this.buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = this.buf.toString('latin1', 0, end);
      const len = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? NaN);
      if (!Number.isFinite(len)) throw new Error(`no Content-Length in ${JSON.stringify(head)}`);
      if (this.buf.length < end + 4 + len) return;
      const body = this.buf.toString('utf8', end + 4, end + 4 + len);
      this.buf = this.buf.subarray(end + 4 + len);
      this.waiting.shift()!([Number(head.slice(9, 12)), body]);
    }
  }
}
