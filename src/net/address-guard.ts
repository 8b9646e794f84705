/**
 * Where a postback may go (contract §6): http or https only, and never to loopback, private or
 * link-local addresses unless DWELL_POSTBACK_ALLOW_PRIVATE. Addresses are classified by ipaddr.js
 * in every form Node or DNS can hand us (IPv4-mapped, NAT64, 6to4 ... are judged by the IPv4
 * address they carry), and the check is made on the address actually connected to: a `lookup`
 * handed to the socket for names, the literal itself for addresses, and the socket's peer once
 * connected. So a name that resolves, or later re-resolves, into our own network is refused too.
 */
import dns from 'node:dns';
import type { LookupFunction, Socket } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { buildConnector } from 'undici';

/** A delivery that can never succeed as configured: the entry is killed, not retried. */
export class RefusedTarget extends Error {
  readonly code = 'DWELL_REFUSED_TARGET';
}

const NOT_ALLOWED = 'postbacks go to public addresses only while DWELL_POSTBACK_ALLOW_PRIVATE is false';

/**
 * The ipaddr.js range of an address: 'unicast' for a public one, else what it is (e.g. 'loopback',
 * 'ipv4Mapped 127.0.0.1: loopback'). Anything unparsable is 'unparsable', so refused.
 */
export function addressRange(ip: string): string {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.parse(ip);
  } catch {
    return 'unparsable';
  }
  if (addr.kind() === 'ipv4') return addr.range();
  const v6 = addr as ipaddr.IPv6;
  const p = v6.parts;
  const range = v6.range();
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  const via = (name: string, ...v4s: ipaddr.IPv4[]) => {
    const bad = v4s.find((a) => a.range() !== 'unicast');
    return bad ? `${name} ${bad}: ${bad.range()}` : 'unicast';
  };
  const zeros = (from: number, to: number) => p.slice(from, to).every((x) => x === 0);
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d
      return via(range, v4(p[6], p[7]));
    case 'rfc6052': // NAT64: 64:ff9b::/96 carries the address; the local-use 64:ff9b:1::/48 is ours by definition
      return zeros(2, 6) ? via('NAT64', v4(p[6], p[7])) : 'NAT64 local-use';
    case '6to4': // 2002:AABB:CCDD::/48
      return via(range, v4(p[1], p[2]));
    case 'teredo': // 2001:0:server:server:flags:port:~client:~client
      return via(range, v4(p[2], p[3]), v4(p[6] ^ 0xffff, p[7] ^ 0xffff));
    case 'unicast':
      if (zeros(0, 6)) return via('IPv4-compatible', v4(p[6], p[7])); // ::a.b.c.d
      // ipaddr.js says 'unicast' for anything it has no name for; only 2000::/3 is globally routed.
      return (p[0] & 0xe000) === 0x2000 ? 'unicast' : 'reserved';
    default:
      return range;
  }
}

export function isPublicAddress(ip: string): boolean {
  return addressRange(ip) === 'unicast';
}

/**
 * Why a URL's host may not be reached, or undefined when only DNS can tell (checked at connect
 * time). `localhost` and `*.localhost` always mean this machine (RFC 6761), with or without the
 * root's trailing dot.
 */
export function hostRefusal(hostname: string): string | undefined {
  const host = hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return 'localhost';
  if (!ipaddr.isValid(host)) return undefined;
  const range = addressRange(host);
  return range === 'unicast' ? undefined : range;
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
  const why = allowPrivate ? undefined : hostRefusal(url.hostname);
  if (why) throw new RefusedTarget(`the postback host ${url.hostname} is a private, loopback or link-local address (${why}); ${NOT_ALLOWED}`);
  return url;
}

type Resolve = (hostname: string, options: dns.LookupAllOptions, cb: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void) => void;

/** A `lookup` for net/tls.connect: the socket connects to what this answers, so checking here checks that. */
export function guardedLookup(resolve: Resolve = dns.lookup as unknown as Resolve): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return (callback as Function)(err);
      const bad = addresses.find((a) => !isPublicAddress(a.address));
      if (bad || addresses.length === 0) {
        const why = bad ? `resolves to ${bad.address}, a private, loopback or link-local address (${addressRange(bad.address)}); ${NOT_ALLOWED}` : 'resolves to no address';
        return (callback as Function)(new RefusedTarget(`the postback host ${hostname} ${why}`));
      }
      if ((options as dns.LookupOptions).all) return (callback as Function)(null, addresses);
      return (callback as Function)(null, addresses[0].address, addresses[0].family);
    });
  };
}

/**
 * Wraps undici's connector: Node never calls `lookup` for an address literal, so a literal is
 * judged here before any packet leaves; and whatever the socket ends up connected to is judged
 * again before undici writes a byte on it (for TLS, after the handshake).
 */
export function guardConnect(connect: buildConnector.connector): buildConnector.connector {
  return (options, callback) => {
    const why = hostRefusal(options.hostname);
    if (why) {
      const err = new RefusedTarget(`the postback host ${options.hostname} is a private, loopback or link-local address (${why}); ${NOT_ALLOWED}`);
      return queueMicrotask(() => callback(err, null)); // undici expects the answer after the call, as a socket's would be
    }
    connect(options, (err, socket) => {
      if (err) return callback(err, null);
      const peer = (socket as Socket).remoteAddress ?? '';
      if (isPublicAddress(peer)) return callback(null, socket!);
      socket!.destroy();
      callback(new RefusedTarget(`the postback host ${options.hostname} connected to ${peer || 'an unknown address'}, a private, loopback or link-local address (${addressRange(peer)}); ${NOT_ALLOWED}`), null);
    });
  };
}
