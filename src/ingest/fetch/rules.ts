/**
 * The fetch rules (docs/API.md, "POST /api/rag/pipelines/{id}/sources"): which hosts and addresses a url/api source may reach.
 * The deny list always wins; the allow list lets a host or address through that the
 * built-in rules (loopback, link-local, metadata, unspecified, multicast) would refuse.
 */
import { lookup } from "node:dns/promises";
import { type Cidr, inCidr, parseCidr, parseIp } from "../../tools/address";
import { forms, refusedBy } from "./refused-addresses";
import { FetchError } from "./errors";

export interface FetchRules {
  allowHosts: string[];
  allowNets: Cidr[];
  denyHosts: string[];
  denyNets: Cidr[];
}

/** Splits allow/deny entries into host names (".corp" or "*.corp" match subdomains) and CIDRs. */
export function compileRules(allow: string[], deny: string[]): FetchRules {
  const split = (list: string[]) => {
    const nets = list.map(parseCidr).filter((c): c is Cidr => c !== null);
    const hosts = list.filter((e) => !parseCidr(e)).map(normaliseHost);
    return { nets, hosts };
  };
  const a = split(allow);
  const d = split(deny);
  return { allowHosts: a.hosts, allowNets: a.nets, denyHosts: d.hosts, denyNets: d.nets };
}

/**
 * Resolves the URL's host and returns the addresses to connect to, after checking every one.
 * Throws FetchError naming the rule when the host or ANY of its addresses is refused.
 */
export async function checkHost(url: URL, rules: FetchRules, signal: AbortSignal): Promise<string[]> {
  const allowed = checkName(url, rules);
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  const addresses = parseIp(literal) ? [literal] : await resolve(literal, signal);
  for (const address of addresses) checkAddress(address, allowed, rules);
  return addresses;
}

/**
 * checkHost for a host known without a lookup, an IP literal or a loopback name: throws
 * FetchError as checkHost would. False, having checked nothing, for any other host.
 */
export function checkLiteralHost(url: URL, rules: FetchRules): boolean {
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  const host = normaliseHost(literal);
  const address = parseIp(literal) !== null;
  if (!address && host !== "localhost" && !host.endsWith(".localhost")) return false;
  const allowed = checkName(url, rules);
  if (address) checkAddress(literal, allowed, rules);
  return true;
}

/** Refuses a host name on the deny list, or a loopback name not allowed; true when the allow list names the host. */
function checkName(url: URL, rules: FetchRules): boolean {
  const host = normaliseHost(url.hostname);
  if (rules.denyHosts.some((p) => hostMatches(host, p))) throw refused("host", host, "deny list");
  const allowed = rules.allowHosts.some((p) => hostMatches(host, p));
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  if (!parseIp(literal) && !allowed && (host === "localhost" || host.endsWith(".localhost"))) {
    throw refused("host", host, "loopback");
  }
  return allowed;
}

function checkAddress(address: string, allowed: boolean, rules: FetchRules): void {
  const ip = parseIp(address)!;
  // A NAT64 address is also judged as the IPv4 address it reaches (see address.ts).
  const inAny = (nets: Cidr[]) => forms(ip).some((form) => nets.some((c) => inCidr(form, c)));
  if (inAny(rules.denyNets)) throw refused("address", address, "deny list");
  if (allowed || inAny(rules.allowNets)) return;
  const rule = refusedBy(ip);
  if (rule) throw refused("address", address, rule);
}

async function resolve(host: string, signal: AbortSignal): Promise<string[]> {
  try {
    const found = await abortable(lookup(host, { all: true, verbatim: true }), signal);
    if (found.length === 0) throw Object.assign(new Error("no addresses"), { code: "ENOTFOUND" });
    return [...new Set(found.map((a) => a.address))];
  } catch (err) {
    if (signal.aborted) throw err;
    const code = (err as { code?: string }).code;
    throw new FetchError(`could not resolve ${host} (${code ?? (err as Error).message})`, code !== "ENOTFOUND", {
      cause: err,
    });
  }
}

/** DNS lookups cannot be cancelled; stop waiting for one when the request's time is up. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function normaliseHost(host: string): string {
  return host.trim().toLowerCase().replace(/\.+$/, "");
}

function hostMatches(host: string, pattern: string): boolean {
  if (pattern.startsWith("*.")) pattern = pattern.slice(1);
  if (pattern.startsWith(".")) return host.endsWith(pattern) || host === pattern.slice(1);
  return host === pattern;
}

function refused(what: "host" | "address", value: string, rule: string): FetchError {
  return new FetchError(`${what} ${value} is refused by the fetch rules (${rule})`, false);
}
