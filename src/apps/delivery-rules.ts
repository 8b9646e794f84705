/**
 * Rules on delivery settings that a schema cannot say: postback URLs are http(s) and, unless
 * allowed, do not point into loopback, private or link-local ranges (a customer's setting must
 * not turn Dwell into a probe of our own network); bucket credentials fit their provider.
 */
import { DwellError } from '../errors.js';
import type { Delivery } from '../schemas/app.js';
import { hostRefusal } from '../net/address-guard.js';

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
    const why = allowPrivate ? undefined : hostRefusal(url.hostname);
    if (why) {
      throw new DwellError('invalid_request', `delivery.url must reach a public address, got ${url.hostname} (${why}); set DWELL_POSTBACK_ALLOW_PRIVATE=true to allow loopback, private and link-local addresses`, '/delivery/url');
    }
    return { method: 'postback', url: url.toString(), ...(d.events ? { events: d.events } : {}) };
  }
  if (d.method === 'bucket' && d.provider === 's3' && d.credentials) {
    const c = d.credentials as Record<string, unknown>;
    if (typeof c.accessKeyId !== 'string' || typeof c.secretAccessKey !== 'string') {
      throw new DwellError('invalid_request', 'S3 credentials are {"accessKeyId", "secretAccessKey", "sessionToken"?}', '/delivery/credentials');
    }
  }
  return d;
}
