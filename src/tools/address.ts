/**
 * IP addresses as bytes (4 for IPv4, 16 for IPv6) and CIDR matching. IPv4-mapped,
 * IPv4-translated and IPv4-compatible IPv6 forms are read as the IPv4 address they
 * carry, so `::ffff:127.0.0.1` is 127.0.0.1.
 */
import { isIP } from "node:net";

export interface Cidr {
  bytes: Uint8Array;
  bits: number;
}

/** Parses an IP literal (brackets and a zone allowed); null when it is not one. */
export function parseIp(text: string): Uint8Array | null {
  const s = text.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(s);
  if (family === 4) return Uint8Array.from(s.split(".").map(Number));
  if (family === 6) return canonical(parseIpv6(s));
  return null;
}

/** Parses "10.0.0.0/8", "fe80::/10" or a bare address (a /32 or /128); null when neither. */
export function parseCidr(text: string): Cidr | null {
  const [address, bits, extra] = text.trim().split("/");
  const bytes = parseIp(address ?? "");
  if (!bytes || extra !== undefined) return null;
  const max = bytes.length * 8;
  const n = bits === undefined ? max : Number(bits);
  if (!Number.isInteger(n) || n < 0 || n > max || (bits !== undefined && !/^\d+$/.test(bits))) return null;
  return { bytes, bits: n };
}

/** True when the address lies in the range (addresses of the other family never do). */
export function inCidr(ip: Uint8Array, cidr: Cidr): boolean {
  if (ip.length !== cidr.bytes.length) return false;
  for (let bit = 0; bit < cidr.bits; bit += 8) {
    const mask = cidr.bits - bit >= 8 ? 0xff : (0xff << (8 - (cidr.bits - bit))) & 0xff;
    if ((ip[bit / 8]! & mask) !== (cidr.bytes[bit / 8]! & mask)) return false;
  }
  return true;
}

function parseIpv6(s: string): Uint8Array {
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (dotted) {
    const [a, b, c, d] = dotted[2]!.split(".").map(Number) as [number, number, number, number];
    s = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = s.split("::") as [string, string | undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    const n = parseInt(g, 16);
    bytes[2 * i] = n >> 8;
    bytes[2 * i + 1] = n & 0xff;
  });
  return bytes;
}

/**
 * `::ffff:a.b.c.d` (mapped), `::ffff:0:a.b.c.d` (translated, RFC 2765) and `::a.b.c.d`
 * (compatible) carry an IPv4 address; judge them as that address.
 */
function canonical(v6: Uint8Array): Uint8Array {
  const zeros = (from: number, to: number) => v6.subarray(from, to).every((b) => b === 0);
  const mapped = zeros(0, 10) && v6[10] === 0xff && v6[11] === 0xff;
  const translated = zeros(0, 8) && v6[8] === 0xff && v6[9] === 0xff && zeros(10, 12);
  const compatible = zeros(0, 12) && !zeros(12, 15);
  return mapped || translated || compatible ? v6.slice(12) : v6;
}
