import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook may not reach unless private URLs are allowed: anything that
 * is not a public unicast address. An IPv4-mapped or NAT64 IPv6 address is refused whole rather
 * than unwrapped, so no spelling of an internal IPv4 address slips through.
 */
// Two lists: an IPv4 address checked against a list holding ::ffff:0:0/96 would match it.
const PRIVATE_V4 = new BlockList();
const PRIVATE_V6 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", 0.0.0.0 included
  ['10.0.0.0', 8], // RFC 1918
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, 169.254.169.254 (cloud metadata) included
  ['172.16.0.0', 12], // RFC 1918
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // RFC 1918
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast included
] as const)
  PRIVATE_V4.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::ffff:0:0', 96], // IPv4-mapped
  ['64:ff9b::', 96], // NAT64
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const)
  PRIVATE_V6.addSubnet(network, prefix, 'ipv6');

/** True for an address a webhook may not reach without WEBHOOK_ALLOW_PRIVATE_URLS, and for non-addresses. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return family === 4 ? PRIVATE_V4.check(address, 'ipv4') : PRIVATE_V6.check(address, 'ipv6');
}
