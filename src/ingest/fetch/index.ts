/**
 * The guarded fetcher for url and api sources (docs/API.md, "POST /api/rag/pipelines/{id}/sources": the fetch rules). It resolves each host itself,
 * checks every address against the fetch rules, then connects to the checked address,
 * never to a name resolved again: the URL carries the IP, `Host` carries the name, and
 * for https `tls.serverName` makes Bun send SNI and verify the certificate for the name.
 * Redirects are followed by hand so each hop is checked the same way.
 */
import { version } from "../../version";
import { FetchError } from "./errors";
import { checkHost, checkLiteralHost, compileRules, type FetchRules } from "./rules";
import { readCapped as readStreamCapped } from "../../tools/streams";

export { FetchError } from "./errors";

export interface SafeFetchOptions {
  /** Hosts, IPs or CIDRs allowed even when the built-in rules refuse them (RAGD_FETCH_ALLOW). */
  allow: string[];
  /** Hosts, IPs or CIDRs always refused (RAGD_FETCH_DENY). */
  deny: string[];
  /** For the whole request: lookups, redirects and body. Default 30 s. */
  timeoutMs?: number;
  maxBytes: number;
  accept?: string;
  /** Awaited before each redirect is followed (a crawl's pace and robots.txt); may throw FetchError. */
  beforeRedirect?: (next: URL, from: URL) => Promise<void>;
  /** What the last answer said (docs/API.md, "Refresh and crawl"): sent back so an unchanged page answers 304. */
  validators?: Validators | null;
  /** Ends the request early (a cancelled crawl); it then fails as a passing FetchError. */
  signal?: AbortSignal;
}

/** An answer's ETag and Last-Modified headers. */
export interface Validators {
  etag: string | null;
  lastModified: string | null;
}

export interface SafeFetchResult {
  bytes: Uint8Array;
  contentType: string;
  /** The URL after redirects, with its host name (not the address connected to). */
  finalUrl: string;
  status: number;
  /** 304: the validators sent still hold; `bytes` is empty. */
  notModified: boolean;
  validators: Validators;
}

const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * GETs a URL under the fetch rules; throws FetchError (with `transient`) on any refusal or failure.
 * @example const { bytes, contentType } = await safeFetch(url, { allow: [], deny: [], maxBytes: 50 << 20 });
 */
export async function safeFetch(url: string, opts: SafeFetchOptions): Promise<SafeFetchResult> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([timeout, opts.signal]) : timeout;
  const rules = compileRules(opts.allow, opts.deny);
  let current = parseHttpUrl(url);
  const auth = takeCredentials(current);
  try {
    for (let redirects = 0; ; redirects++) {
      // Like curl and browsers, credentials go only to the origin they were given for.
      const authorization = auth && current.origin === auth.origin ? auth.header : undefined;
      const res = await request(current, rules, { accept: opts.accept, authorization, ...conditional(opts) }, signal);
      const next = redirectTarget(res, current);
      if (!next) return await finish(res, current, opts.maxBytes);
      await res.body?.cancel();
      if (redirects === MAX_REDIRECTS)
        throw new FetchError(`${show(url)} redirected more than ${MAX_REDIRECTS} times`, false);
      await opts.beforeRedirect?.(next, current);
      current = next;
    }
  } catch (err) {
    if (err instanceof FetchError) throw err;
    if (opts.signal?.aborted) throw new FetchError(`the fetch of ${show(current)} was cancelled`, true, { cause: err });
    if (signal.aborted)
      throw new FetchError(`${show(current)} did not answer within ${seconds(timeoutMs)}`, true, { cause: err });
    // A certificate that does not verify will not verify on retry either.
    const tls = /CERT|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/.test(String((err as { code?: unknown }).code ?? ""));
    throw new FetchError(`could not fetch ${show(current)}: ${(err as Error).message}`, !tls, { cause: err });
  }
}

/**
 * POSTs `body` once under the same fetch rules (webhook deliveries): the host is
 * resolved and checked, the checked address is connected to, and a redirect is not
 * followed (it answers with its 3xx status). Throws FetchError on refusal or failure.
 * @example const { status } = await safePost(url, json, { "content-type": "application/json" }, rules);
 */
export async function safePost(
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: Pick<SafeFetchOptions, "allow" | "deny" | "timeoutMs">,
): Promise<{ status: number }> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const signal = AbortSignal.timeout(timeoutMs);
  const target = parseHttpUrl(url);
  const auth = takeCredentials(target);
  try {
    const res = await request(target, compileRules(opts.allow, opts.deny), { authorization: auth?.header }, signal, {
      method: "POST",
      body,
      headers,
    });
    await res.body?.cancel();
    return { status: res.status };
  } catch (err) {
    if (err instanceof FetchError) throw err;
    if (signal.aborted) throw new FetchError(`${show(target)} did not answer within ${seconds(timeoutMs)}`, true);
    throw new FetchError(`could not reach ${show(target)}: ${(err as Error).message}`, true, { cause: err });
  }
}

/**
 * Why the fetch rules refuse a URL whose host is an IP literal or a loopback name, found
 * without any lookup; null when they allow it, for any other host name (resolved and
 * checked at each fetch), and for what is not a URL. The one check of a URL where it
 * enters (sources, documents, webhooks, an imported pipeline).
 * @example literalAddressProblem("http://127.0.0.1/", { fetchAllow: [], fetchDeny: [] }) // "address 127.0.0.1 is refused by the fetch rules (loopback)"
 */
export function literalAddressProblem(
  url: string | URL,
  config: { fetchAllow: string[]; fetchDeny: string[] },
): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  try {
    checkLiteralHost(u, compileRules(config.fetchAllow, config.fetchDeny));
    return null;
  } catch (err) {
    if (err instanceof FetchError) return err.message;
    throw err;
  }
}

/** Longest URL a url or api source may have (docs/API.md, data sources). */
export const MAX_SOURCE_URL_CHARS = 4096;

/**
 * What is wrong with a url or api source's URL where it enters (the sources API, the
 * documents API, an imported pipeline): longer than MAX_SOURCE_URL_CHARS, not http(s),
 * or a literal address the fetch rules refuse; null when it may be fetched.
 * @example sourceUrlProblem("ftp://x/", rules) // "must be an http(s) URL"
 */
export function sourceUrlProblem(value: string, config: { fetchAllow: string[]; fetchDeny: string[] }): string | null {
  if (value.length > MAX_SOURCE_URL_CHARS) return `must be at most ${MAX_SOURCE_URL_CHARS} characters`;
  let u: URL | null = null;
  try {
    u = new URL(value);
  } catch {}
  if (!u || (u.protocol !== "http:" && u.protocol !== "https:")) return "must be an http(s) URL";
  return literalAddressProblem(u, config);
}

/**
 * One hop: check the host, then try its checked addresses in order until one connects.
 * Also the Git sources' transport (git/http.ts), which POSTs bytes.
 */
export async function request(
  url: URL,
  rules: FetchRules,
  extra: { accept?: string; authorization?: string; conditional?: Record<string, string> },
  signal: AbortSignal,
  post?: { method: "POST"; body: string | Uint8Array<ArrayBuffer>; headers: Record<string, string> },
): Promise<Response> {
  const addresses = await checkHost(url, rules, signal);
  const literal = addresses.length === 1 && url.hostname.replace(/^\[|\]$/g, "") === addresses[0];
  let lastError: unknown;
  for (const address of addresses) {
    const pinned = new URL(url);
    pinned.hostname = address.includes(":") ? `[${address}]` : address;
    pinned.hash = "";
    try {
      return await fetch(pinned, {
        method: post?.method ?? "GET",
        body: post?.body,
        headers: overriding(post?.headers, {
          Host: url.host,
          Accept: extra.accept ?? "*/*",
          "User-Agent": `ragd/${version}`,
          ...(extra.authorization ? { Authorization: extra.authorization } : {}),
          ...extra.conditional,
        }),
        redirect: "manual",
        signal,
        // Without this Bun applies HTTP(S)_PROXY and NO_PROXY, judged against the IP.
        proxy: false,
        tls: url.protocol === "https:" && !literal ? { serverName: url.hostname.replace(/\.+$/, "") } : undefined,
      });
    } catch (err) {
      if (signal.aborted) throw err;
      lastError = err;
    }
  }
  throw lastError;
}

/**
 * The caller's headers with ragd's own set over them, matched without regard to case: as
 * object keys a caller's `user-agent` went out beside ragd's `User-Agent`, sent twice.
 */
function overriding(caller: Record<string, string> | undefined, own: Record<string, string>): Headers {
  const headers = new Headers(caller);
  for (const [name, value] of Object.entries(own)) headers.set(name, value);
  return headers;
}

function redirectTarget(res: Response, from: URL): URL | null {
  const location = res.headers.get("location");
  if (!REDIRECTS.has(res.status) || !location) return null;
  // Resolve against the URL with the host name: the response came from the pinned IP.
  const next = new URL(location, from);
  takeCredentials(next); // credentials in a Location header are not followed either
  if (next.protocol !== "http:" && next.protocol !== "https:") {
    throw new FetchError(`${show(from)} redirected to a ${next.protocol} URL, which cannot be fetched`, false);
  }
  return next;
}

/** If-None-Match / If-Modified-Since from the validators of the last answer. */
function conditional(opts: SafeFetchOptions): { conditional?: Record<string, string> } {
  const v = opts.validators;
  if (!v?.etag && !v?.lastModified) return {};
  const headers: Record<string, string> = {};
  if (v.etag) headers["If-None-Match"] = v.etag;
  if (v.lastModified) headers["If-Modified-Since"] = v.lastModified;
  return { conditional: headers };
}

async function finish(res: Response, url: URL, maxBytes: number): Promise<SafeFetchResult> {
  const validators = { etag: res.headers.get("etag"), lastModified: res.headers.get("last-modified") };
  const base = {
    contentType: res.headers.get("content-type") ?? "",
    finalUrl: url.href,
    status: res.status,
    validators,
  };
  if (res.status === 304) {
    await res.body?.cancel();
    return { ...base, bytes: new Uint8Array(), notModified: true };
  }
  if (!res.ok) {
    await res.body?.cancel();
    const transient = res.status >= 500 || res.status === 408 || res.status === 429;
    throw new FetchError(`${show(url)} answered ${res.status}`, transient, { status: res.status });
  }
  const bytes = await readCapped(res, maxBytes, url);
  return { ...base, bytes, notModified: false };
}

/** Reads the body while counting, and stops as soon as it passes `maxBytes`. */
async function readCapped(res: Response, maxBytes: number, url: URL): Promise<Uint8Array> {
  const tooLarge = () => new FetchError(`${show(url)} is larger than the ${maxBytes}-byte limit`, false);
  if (Number(res.headers.get("content-length") ?? 0) > maxBytes) {
    await res.body?.cancel();
    throw tooLarge();
  }
  return readStreamCapped(res.body, maxBytes, () => {
    throw tooLarge();
  });
}

function parseHttpUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchError(`invalid URL: ${raw.replace(/\/\/[^/?#]*@/, "//")}`, false);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new FetchError(`only http and https URLs can be fetched, not ${url.protocol}`, false);
  }
  return url;
}

/**
 * Moves `user:password@` out of the URL into a Basic Authorization header for its origin,
 * so that the URL itself (in messages, `finalUrl`, the request line) never carries them.
 */
function takeCredentials(url: URL): { origin: string; header: string } | null {
  if (!url.username && !url.password) return null;
  const pair = `${decodeUserinfo(url.username)}:${decodeUserinfo(url.password)}`;
  url.username = "";
  url.password = "";
  return { origin: url.origin, header: `Basic ${Buffer.from(pair).toString("base64")}` };
}

/** Percent-decodes a user name or password; a stray `%` is kept as it is. */
function decodeUserinfo(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** A URL for messages: credentials removed. */
/**
 * A URL as an error shows it (on the source, to everyone who sees it): without credentials,
 * and with its query and fragment elided, which may carry a token (a redirect's target
 * often does: a signed download link).
 */
function show(url: URL | string): string {
  const u = new URL(url);
  u.username = "";
  u.password = "";
  const elided = u.search || u.hash ? "?…" : "";
  u.search = "";
  u.hash = "";
  return u.href + elided;
}

function seconds(ms: number): string {
  return ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`;
}
