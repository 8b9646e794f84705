/**
 * Rules on delivery settings that a schema cannot say: postback URLs are http(s) and, unless
 * allowed, do not point into loopback, private or link-local ranges (a customer's setting must
 * not turn Dwell into a probe of our own network); bucket credentials fit their provider.
 */
import { isIP } from 'node:net';
import { DwellError } from '../errors.js';
import type { Delivery } from '../schemas/app.js';

export function checkDelivery(d: Delivery, allowPrivate: boolean): Delivery {
  if (d.method === 'postback') {
    let url: URL;
    try {
      url = new URL(d.url);
    } catch {
      throw new DwellError('invalid_request', `delivery.url is not a URL: ${JSON.stringify(d.url)}`, '/delivery/url');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new DwellError('invalid_request', `delivery.url must be http or https, got ${url.protocol}`, '/delivery/url');
    }
    if (!allowPrivate && isPrivateHost(url.hostname)) {
      throw new DwellError('invalid_request', `delivery.url points to a private, loopback or link-local address (${url.hostname}); set DWELL_POSTBACK_ALLOW_PRIVATE=true to allow it`, '/delivery/url');
    }
    return { method: 'postback', url: url.toString() };
  }
  if (d.method === 'bucket' && d.provider === 's3' && d.credentials) {
    const c = d.credentials as Record<string, unknown>;
    if (typeof c.accessKeyId !== 'string' || typeof c.secretAccessKey !== 'string') {
      throw new DwellError('invalid_request', 'S3 credentials are {"accessKeyId", "secretAccessKey", "sessionToken"?}', '/delivery/credentials');
    }
  }
  return d;
}

/** True for names and literal addresses in loopback, private, link-local or unspecified ranges. */
export function isPrivateHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const kind = isIP(host);
  if (kind === 4) return isPrivateV4(host);
  if (kind === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host);
    if (mapped) return isPrivateV4(mapped[1]);
    return host === '::1' || host === '::' || /^f[cd]/.test(host) || /^fe[89ab]/.test(host);
  }
  return false;
}

function isPrivateV4(ip: string): boolean {
  const [a, b] = ip.split('.').map(Number);
  return a === 10 || a === 127 || a === 0 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31)
    || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
}
