/** The postback address classifier (contract §6): pure, so a table of addresses and verdicts. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addressRange, hostRefusal, isPublicAddress } from '../src/net/address-guard.js';

test('the classifier: ipaddr.js ranges, IPv6 forms judged by the IPv4 address they carry', () => {
  const table: Array<[string, string]> = [
    ['127.0.0.1', 'loopback'], ['127.255.0.9', 'loopback'], ['10.1.2.3', 'private'], ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'], ['100.64.0.1', 'carrierGradeNat'], ['100.127.255.255', 'carrierGradeNat'],
    ['169.254.169.254', 'linkLocal'], ['0.0.0.0', 'unspecified'], ['255.255.255.255', 'broadcast'], ['224.0.0.1', 'multicast'],
    ['::1', 'loopback'], ['::', 'unspecified'], ['fc00::1', 'uniqueLocal'], ['fdff:ffff::1', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'], ['febf::1', 'linkLocal'], ['ff02::1', 'multicast'], ['2001:db8::1', 'reserved'],
    ['::ffff:127.0.0.1', 'ipv4Mapped 127.0.0.1: loopback'], ['::ffff:7f00:1', 'ipv4Mapped 127.0.0.1: loopback'],
    ['::ffff:a9fe:a9fe', 'ipv4Mapped 169.254.169.254: linkLocal'], ['::7f00:1', 'IPv4-compatible 127.0.0.1: loopback'],
    ['::127.0.0.1', 'ipv4Mapped 127.0.0.1: loopback'], // ipaddr.js reads the dotted IPv4-compatible form as mapped: same verdict
    ['::ffff:0:7f00:1', 'rfc6145 127.0.0.1: loopback'], ['64:ff9b::10.0.0.1', 'NAT64 10.0.0.1: private'],
    ['64:ff9b::7f00:1', 'NAT64 127.0.0.1: loopback'], ['64:ff9b:1::8.8.8.8', 'NAT64 local-use'],
    ['2002:c0a8:101::1', '6to4 192.168.1.1: private'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'teredo 127.0.0.1: loopback'], // client 127.0.0.1, stored inverted
    ['2130706433', 'loopback'], ['0x7f.1', 'loopback'], ['0177.0.0.1', 'loopback'],
    ['not an address', 'unparsable'], ['', 'unparsable'], ['1.2.3.4.5', 'unparsable'],
    ['8.8.8.8', 'unicast'], ['93.184.216.34', 'unicast'], ['100.128.0.1', 'unicast'], ['172.32.0.1', 'unicast'],
    ['169.255.0.1', 'unicast'], ['2606:4700:4700::1111', 'unicast'], ['::ffff:8.8.8.8', 'unicast'],
    ['64:ff9b::8.8.8.8', 'unicast'], ['2002:808:808::1', 'unicast'],
  ];
  for (const [ip, range] of table) {
    assert.equal(addressRange(ip), range, ip);
    assert.equal(isPublicAddress(ip), range === 'unicast', ip);
  }
});

test('URL hosts: localhost by name, with or without the trailing dot; other names are left to DNS', () => {
  const table: Array<[string, string | undefined]> = [
    ['localhost', 'localhost'], ['localhost.', 'localhost'], ['api.localhost', 'localhost'], ['api.localhost.', 'localhost'],
    ['[::ffff:7f00:1]', 'ipv4Mapped 127.0.0.1: loopback'], ['[::]', 'unspecified'], ['0.0.0.0', 'unspecified'],
    ['localhost.example.com', undefined], ['notlocalhost', undefined], ['hooks.example.com', undefined], ['8.8.8.8', undefined],
  ];
  for (const [host, why] of table) assert.equal(hostRefusal(host), why, host);
});
