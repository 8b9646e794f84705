/**
 * A local stand-in for the GCS JSON API, implementing only what @google-cloud/storage v7 does for
 * `file.save(buf, { resumable: false })`: one multipart POST to /upload/storage/v1/b/<bucket>/o
 * (JSON metadata part + media part), answered with object metadata carrying md5Hash and crc32c,
 * which the client checks; and DELETE, which the client sends when those hashes do not match.
 * Any other call is answered 501 and recorded in `unexpected`, so a test can see the client
 * needing more than we thought.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StoredObject { bucket: string; name: string; body: Buffer; contentType: string; metadata: Record<string, unknown> }

export class FakeGcs {
  readonly buckets = new Set<string>();
  readonly objects = new Map<string, StoredObject>();
  readonly unexpected: string[] = [];
  readonly authHeaders: string[] = [];
  /** Answer the next n uploads with 503, as an outage would. */
  failNext = 0;
  private server: http.Server | null = null;
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Listens on `port` (0: any free one; the same one again after `stop` to simulate a restart). */
  async start(port = this.port): Promise<void> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  list(bucket: string): StoredObject[] {
    return [...this.objects.values()].filter((o) => o.bucket === bucket);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.headers.authorization) this.authHeaders.push(req.headers.authorization);
    const upload = /^\/upload\/storage\/v1\/b\/([^/]+)\/o$/.exec(url.pathname);
    const object = /^\/storage\/v1\/b\/([^/]+)\/o\/(.+)$/.exec(url.pathname);
    if (req.method === 'POST' && upload && url.searchParams.get('uploadType') === 'multipart') {
      return this.upload(decodeURIComponent(upload[1]), url.searchParams.get('name') ?? '', req.headers['content-type'] ?? '', body, res);
    }
    if (req.method === 'DELETE' && object) {
      this.objects.delete(`${decodeURIComponent(object[1])}/${decodeURIComponent(object[2])}`);
      res.writeHead(204).end();
      return;
    }
    this.unexpected.push(`${req.method} ${req.url}`);
    reply(res, 501, { error: { code: 501, message: 'not implemented by FakeGcs' } });
  }

  private upload(bucket: string, name: string, contentType: string, body: Buffer, res: http.ServerResponse): void {
    if (this.failNext > 0) {
      this.failNext--;
      return reply(res, 503, { error: { code: 503, message: 'Service Unavailable (FakeGcs.failNext)' } });
    }
    if (!this.buckets.has(bucket)) return reply(res, 404, { error: { code: 404, message: 'The specified bucket does not exist.' } });
    const boundary = /boundary="?([^";]+)"?/.exec(contentType)?.[1];
    if (!boundary) return reply(res, 400, { error: { code: 400, message: 'multipart/related without a boundary' } });
    const [metaPart, mediaPart] = parts(body, boundary);
    if (!metaPart || !mediaPart) return reply(res, 400, { error: { code: 400, message: 'expected two parts' } });
    const metadata = JSON.parse(metaPart.body.toString()) as Record<string, unknown>;
    const objectName = name || String(metadata.name ?? '');
    const stored = { bucket, name: objectName, body: mediaPart.body, contentType: mediaPart.type, metadata };
    this.objects.set(`${bucket}/${objectName}`, stored);
    reply(res, 200, {
      kind: 'storage#object', id: `${bucket}/${objectName}/1`, name: objectName, bucket, generation: '1',
      contentType: stored.contentType, size: String(stored.body.length),
      md5Hash: createHash('md5').update(stored.body).digest('base64'), crc32c: crc32c(stored.body),
    });
  }
}

function reply(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** The parts of a multipart/related body: each part's Content-Type and bytes. */
function parts(body: Buffer, boundary: string): Array<{ type: string; body: Buffer }> {
  const delim = Buffer.from(`--${boundary}`);
  const out: Array<{ type: string; body: Buffer }> = [];
  let at = body.indexOf(delim);
  while (at >= 0) {
    const start = at + delim.length;
    if (body.subarray(start, start + 2).toString() === '--') break; // closing delimiter
    const next = body.indexOf(delim, start);
    if (next < 0) break;
    const part = body.subarray(start, next);
    const headEnd = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, headEnd).toString();
    let content = part.subarray(headEnd + 4);
    if (content.subarray(-2).toString() === '\r\n') content = content.subarray(0, -2);
    out.push({ type: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1] ?? '', body: content });
    at = next;
  }
  return out;
}

const CRC32C_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC32C (Castagnoli) as GCS reports it: base64 of the big-endian 32-bit value. */
export function crc32c(buf: Buffer): string {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC32C_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  const out = Buffer.alloc(4);
  out.writeUInt32BE((c ^ 0xffffffff) >>> 0);
  return out.toString('base64');
}
