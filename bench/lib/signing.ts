/**
 * Client side of contract §1 for benchmarks: prepared gzip bodies whose SHA-256 is computed once,
 * signed per request with a fresh timestamp (`signature` of src/signing.ts). A body is never sent twice within one second, so
 * every (timestamp, body) pair, and so every signature, is unique and replay protection holds.
 */
import { gzipSync } from 'node:zlib';
import { bodySha256 } from '../../src/signing.js';

export interface PreparedBody { gz: Buffer; sha256: string; jsonBytes: number }

export function prepareBody(json: unknown): PreparedBody {
  const text = JSON.stringify(json);
  const gz = gzipSync(text);
  return { gz, sha256: bodySha256(gz), jsonBytes: Buffer.byteLength(text) };
}

/**
 * Hands out bodies round-robin. When the next one was already used this second (the rate
 * exceeds the pool's size), a new variant is made with `make(n)`, so the pool grows to the
 * peak rate (usually during warm-up) and then costs nothing but the signature per request.
 */
export class BodyPool {
  private readonly bodies: PreparedBody[] = [];
  private lastSecond: number[] = [];
  private cursor = 0;
  /** Bodies made after the initial preparation because the rate outran the pool. */
  grown = 0;

  constructor(private readonly make: (n: number) => PreparedBody, initial: number) {
    for (let n = 0; n < initial; n++) this.add(make(n));
  }

  private add(b: PreparedBody): void {
    this.bodies.push(b);
    this.lastSecond.push(-1);
  }

  get size(): number {
    return this.bodies.length;
  }

  get meanGzipBytes(): number {
    return this.bodies.reduce((a, b) => a + b.gz.length, 0) / this.bodies.length;
  }

  get meanJsonBytes(): number {
    return this.bodies.reduce((a, b) => a + b.jsonBytes, 0) / this.bodies.length;
  }

  /** A body not yet used in `second`, marked as used in it. */
  take(second: number): PreparedBody {
    const i = this.cursor;
    if (this.lastSecond[i] !== second) {
      this.lastSecond[i] = second;
      this.cursor = (i + 1) % this.bodies.length;
      return this.bodies[i];
    }
    // Round-robin order: the body at the cursor is the least recently used; if even it was used
    // this second, all were. Make a new one (it is placed at the end, the cursor stays).
    const b = this.make(this.bodies.length);
    this.add(b);
    this.lastSecond[this.bodies.length - 1] = second;
    this.grown++;
    return b;
  }
}
