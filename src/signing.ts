/**
 * The request signature of contract §1, one definition for the server that checks it and for
 * the clients that make it (benchmarks, tests): HMAC-SHA256 in hex over
 * "timestamp\nMETHOD\npath?query\nhex SHA-256 of the raw body bytes" (gzip bytes when gzipped).
 */
import { createHash, createHmac } from 'node:crypto';

export function stringToSign(timestamp: string, method: string, pathAndQuery: string, bodySha256Hex: string): string {
  return `${timestamp}\n${method.toUpperCase()}\n${pathAndQuery}\n${bodySha256Hex}`;
}

export function bodySha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** X-Signature for a request, as a client sends it. */
export function signature(secret: string, timestamp: string, method: string, pathAndQuery: string, bodySha256Hex: string): string {
  return createHmac('sha256', secret).update(stringToSign(timestamp, method, pathAndQuery, bodySha256Hex)).digest('hex');
}
