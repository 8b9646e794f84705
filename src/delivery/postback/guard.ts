/**
 * Where a postback may go (contract §6): http or https only, and never to loopback, private or
 * link-local addresses unless DWELL_POSTBACK_ALLOW_PRIVATE. The check is made on the address
 * actually connected to (a `lookup` handed to the socket), so a name that resolves, or later
 * re-resolves, into our own network is refused as well as a literal address.
 */
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isPrivateHost } from '../../apps/delivery-rules.js';

/** A delivery that can never succeed as configured: the entry is killed, not retried. */
export class RefusedTarget extends Error {
  readonly code = 'DWELL_REFUSED_TARGET';
}

/** The parsed target, or a RefusedTarget saying what was expected and what was found. */
export function checkTarget(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RefusedTarget(`the postback URL is not a URL: ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new RefusedTarget(`the postback URL must be http or https, got ${url.protocol}`);
  }
  if (!allowPrivate && isPrivateHost(url.hostname)) {
    throw new RefusedTarget(`the postback host ${url.hostname} is a private, loopback or link-local address (DWELL_POSTBACK_ALLOW_PRIVATE is false)`);
  }
  return url;
}

type Resolve = (hostname: string, options: dns.LookupAllOptions, cb: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => void;

/** A `lookup` for net/tls.connect that refuses names resolving into private ranges. */
export function guardedLookup(resolve: Resolve = dns.lookup as unknown as Resolve): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return (callback as Function)(err);
      const bad = addresses.find((a) => isPrivateHost(a.address));
      if (bad || addresses.length === 0) {
        const why = bad ? `resolves to ${bad.address}, a private, loopback or link-local address (DWELL_POSTBACK_ALLOW_PRIVATE is false)` : 'resolves to no address';
        return (callback as Function)(new RefusedTarget(`the postback host ${hostname} ${why}`));
      }
      if ((options as dns.LookupOptions).all) return (callback as Function)(null, addresses);
      return (callback as Function)(null, addresses[0].address, addresses[0].family);
    });
  };
}
