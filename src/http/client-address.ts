/**
 * The client's network address, for the sign-in limits (docs/API.md, "Sign-in limits").
 * The server records the peer address of each connection; behind a reverse proxy listed
 * in RAGD_TRUSTED_PROXIES, the client is the nearest X-Forwarded-For hop that is not one
 * of those proxies. X-Forwarded-For from anyone else is ignored: a client could write any
 * address there.
 */
import { type Cidr, inCidr, parseCidr, parseIp } from "../tools/address";

const peers = new WeakMap<Request, string>();

/** Records the address a request came from (the server's `requestIP`). */
export function recordPeer(request: Request, address: string | undefined): void {
  if (address) peers.set(request, address);
}

/** Resolves client addresses with the configured trusted proxies. */
export class ClientAddresses {
  private readonly trusted: Cidr[];

  constructor(trustedProxies: string[]) {
    this.trusted = trustedProxies.map(parseCidr).filter((c): c is Cidr => c !== null);
  }

  /**
   * A stable key for the client of `request`: its IPv4 address, or the /64 of its IPv6
   * address (one host usually holds a whole /64). "unknown" when the request did not come
   * through the server (in-process calls).
   */
  of(request: Request): string {
    const peer = peers.get(request);
    const ip = peer ? parseIp(peer) : null;
    if (!ip) return "unknown";
    return keyOf(this.isTrusted(ip) ? this.forwarded(request, ip) : ip);
  }

  private isTrusted(ip: Uint8Array): boolean {
    return this.trusted.some((c) => inCidr(ip, c));
  }

  /** The right-most X-Forwarded-For hop that is not a trusted proxy (the peer when there is none). */
  private forwarded(request: Request, peer: Uint8Array): Uint8Array {
    const hops = (request.headers.get("x-forwarded-for") ?? "").split(",").reverse();
    let last = peer;
    for (const hop of hops) {
      const ip = parseIp(
        hop
          .trim()
          .replace(/^\[([^\]]+)\](:\d+)?$/, "$1")
          .replace(/^([\d.]+):\d+$/, "$1"),
      );
      if (!ip) break;
      last = ip;
      if (!this.isTrusted(ip)) break;
    }
    return last;
  }
}

function keyOf(ip: Uint8Array): string {
  if (ip.length === 4) return ip.join(".");
  const groups: string[] = [];
  for (let i = 0; i < 8; i += 2) groups.push(((ip[i]! << 8) | ip[i + 1]!).toString(16));
  return `${groups.join(":")}::/64`;
}
