/**
 * The HTTP client a Git source's fetch goes through (isomorphic-git's HttpClient): every
 * request, redirects included, under the fetch rules of url sources (fetch/index.ts
 * resolves and checks each host, then connects to the checked address); credentials go
 * only to the clone URL's origin; the bytes of one sync are capped, and so is its time.
 */
import type { GitHttpRequest, GitHttpResponse, HttpClient } from "isomorphic-git";
import { FetchError, request } from "../fetch/index";
import { compileRules } from "../fetch/rules";
import { GitError } from "./types";

const MAX_REDIRECTS = 5;

export interface GitHttpLimits {
  allow: string[];
  deny: string[];
  /** Bytes all the answers of this client may carry together. */
  maxBytes: number;
  signal: AbortSignal;
}

/** The clone URL without its credentials, and the Basic header they make (null: none). */
export function splitAuth(href: string): { url: string; auth: { origin: string; header: string } | null } {
  const u = new URL(href);
  if (!u.username && !u.password) return { url: u.href, auth: null };
  const pair = `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
  u.username = "";
  u.password = "";
  return { url: u.href, auth: { origin: u.origin, header: `Basic ${Buffer.from(pair).toString("base64")}` } };
}

async function collect(body: GitHttpRequest["body"]): Promise<Uint8Array<ArrayBuffer> | undefined> {
  if (!body) return undefined;
  const parts: Uint8Array[] = [];
  for await (const part of body) parts.push(part);
  return Buffer.concat(parts);
}

/** An HttpClient for one sync; `auth` from splitAuth. */
export function gitHttp(limits: GitHttpLimits, auth: { origin: string; header: string } | null): HttpClient {
  const rules = compileRules(limits.allow, limits.deny);
  let received = 0;
  const count = async function* (body: ReadableStream<Uint8Array> | null): AsyncIterableIterator<Uint8Array> {
    if (!body) return;
    for await (const part of body) {
      received += part.byteLength;
      if (received > limits.maxBytes)
        throw new GitError(`the repository sent more than the ${limits.maxBytes >> 20} MB this source allows`);
      yield part;
    }
  };
  return {
    async request(req: GitHttpRequest): Promise<GitHttpResponse> {
      const body = await collect(req.body);
      let url = new URL(req.url);
      for (let hop = 0; ; hop++) {
        const authorization = auth && url.origin === auth.origin ? auth.header : undefined;
        const post = body ? { method: "POST" as const, body, headers: req.headers ?? {} } : undefined;
        const accept = req.headers?.accept ?? req.headers?.Accept;
        const res = await request(url, rules, { accept, authorization }, limits.signal, post).catch((err) => {
          throw err instanceof FetchError ? new GitError(err.message) : err;
        });
        const location = res.headers.get("location");
        if (res.status >= 300 && res.status < 400 && location && hop < MAX_REDIRECTS) {
          await res.body?.cancel();
          url = new URL(location, url);
          url.username = url.password = "";
          continue;
        }
        return {
          url: url.href,
          method: req.method,
          statusCode: res.status,
          statusMessage: res.statusText,
          headers: Object.fromEntries(res.headers.entries()),
          body: count(res.body),
        };
      }
    },
  };
}
