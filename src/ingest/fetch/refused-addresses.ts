/**
 * The address classes the fetch rules refuse (loopback, link-local, metadata, …). An
 * address is judged as parsed by tools/address.ts (an IPv4-mapped form as its IPv4
 * address, so `::ffff:127.0.0.1` is loopback); a NAT64 address is judged as itself and
 * as the IPv4 address a NAT64 gateway would reach.
 */
import { inCidr, parseCidr } from "../../tools/address";

const REFUSED: [string, string][] = [
  ["169.254.169.254", "cloud metadata"],
  ["100.100.100.200", "cloud metadata"],
  ["fd00:ec2::254", "cloud metadata"],
  ["0.0.0.0/8", "unspecified"],
  ["::/128", "unspecified"],
  ["127.0.0.0/8", "loopback"],
  ["::1/128", "loopback"],
  ["169.254.0.0/16", "link-local"],
  ["fe80::/10", "link-local"],
  ["224.0.0.0/4", "multicast"],
  ["ff00::/8", "multicast"],
  ["255.255.255.255", "broadcast"],
];
const REFUSED_RANGES = REFUSED.map(([cidr, rule]) => [parseCidr(cidr)!, rule] as const);

/** The rule that refuses this address ("loopback", "link-local", …), or null when it may be fetched. */
export function refusedBy(ip: Uint8Array): string | null {
  for (const form of forms(ip)) {
    const rule = REFUSED_RANGES.find(([cidr]) => inCidr(form, cidr))?.[1];
    if (rule) return rule;
  }
  return null;
}

const NAT64 = [parseCidr("64:ff9b::/96")!, parseCidr("64:ff9b:1::/48")!];

/**
 * The address itself and, for a NAT64 address, the IPv4 address a gateway would reach: the
 * last 32 bits, as RFC 6052 lays out a /96 prefix. The local-use 64:ff9b:1::/48 is read the
 * same way (its usual 64:ff9b:1::/96 deployment); other prefix lengths inside it are not
 * decoded, so a site that uses them should add the prefix to RAGD_FETCH_DENY.
 */
export function forms(ip: Uint8Array): Uint8Array[] {
  return NAT64.some((c) => inCidr(ip, c)) ? [ip, ip.slice(12)] : [ip];
}
