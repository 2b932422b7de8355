/**
 * The DNS-rebinding defence (docs/API.md, "Host names ragd answers for"): ragd answers
 * only when the `Host` header names it. A page on attacker.test whose name is made to
 * resolve to 127.0.0.1 reaches ragd with `Host: attacker.test` and, since its `Origin`
 * matches that Host, would pass the CSRF rule; refusing the name itself stops it, for
 * every route.
 */
import { Elysia } from "elysia";
import type { Config } from "../config";
import { inCidr, parseCidr, parseIp } from "../tools/address";
import { AppError, errorResponse, errorStatus, requestIdOf } from "./errors";

const LOOPBACK = [parseCidr("127.0.0.0/8")!, parseCidr("::1")!];
const ANY_ADDRESS = new Set(["0.0.0.0", "::", ""]);

/** Lower case, no brackets, no trailing dot: the form Host names are compared in. */
export function normaliseHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.+$/, "");
}

/**
 * The names ragd serves besides loopback: the host of the public URL (by default
 * http://HOST:PORT, so a specific bind address serves itself) and RAGD_ALLOWED_HOSTS.
 * An entry ".example.com" or "*.example.com" covers the domain and its subdomains.
 */
export function servedHosts(config: Pick<Config, "host" | "publicUrl" | "allowedHosts">): string[] {
  const own = config.publicUrl ? new URL(config.publicUrl).hostname : config.host;
  return [own, ...config.allowedHosts].map(normaliseHost).filter((h) => !ANY_ADDRESS.has(h));
}

/** True for the loopback names (localhost, *.localhost) and addresses (127.0.0.0/8, ::1). */
export function isLoopbackHost(host: string): boolean {
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  const ip = parseIp(host);
  return ip !== null && LOOPBACK.some((c) => inCidr(ip, c));
}

/** True when a Host header value (port allowed) names this server. */
export function hostAllowed(header: string, served: string[]): boolean {
  let host: string;
  try {
    host = normaliseHost(new URL(`http://${header.trim()}`).hostname);
  } catch {
    return false;
  }
  if (!host) return false;
  if (isLoopbackHost(host)) return true;
  return served.some((pattern) => {
    if (pattern.startsWith("*.")) pattern = pattern.slice(1);
    if (pattern.startsWith(".")) return host.endsWith(pattern) || host === pattern.slice(1);
    return host === pattern;
  });
}

/**
 * True when ragd listens on every interface but serves only loopback names: other machines
 * can connect yet get 421, so the start-up log says what to set.
 */
export function servesOnlyLoopback(config: Pick<Config, "host" | "publicUrl" | "allowedHosts">): boolean {
  return ANY_ADDRESS.has(normaliseHost(config.host)) && servedHosts(config).length === 0;
}

/** The plugin: answers 421 misdirected_request before any route runs. */
export function hostGuard(config: Pick<Config, "host" | "publicUrl" | "allowedHosts">) {
  const served = servedHosts(config);
  return new Elysia({ name: "host-guard" }).onRequest(({ request }) => {
    // Bun fills request.url from the Host header; a request made in-process may have none.
    // An HTTP/1.0 request without Host names nothing and is refused too.
    const header = request.headers.get("host") ?? URL.parse(request.url)?.host ?? "";
    if (hostAllowed(header, served)) return;
    const err = new AppError(
      "misdirected_request",
      `this server does not answer for the host ${JSON.stringify(header.slice(0, 300))}; ` +
        "an administrator can serve it by adding it to RAGD_ALLOWED_HOSTS",
    );
    errorStatus.set(request, err.status);
    return errorResponse(err, requestIdOf(request));
  });
}
