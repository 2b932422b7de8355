/**
 * A read-through cache between LanceDB and the bucket: an S3-compatible endpoint on
 * loopback that LanceDB is pointed at (connection.ts). Every request goes on to the
 * store, signed again with the configured keys (files/sign-request.ts), except reads of
 * the files Lance never changes once written, which are served in 1 MiB blocks from the
 * data directory (block-cache.ts) and fetched from the store once. LanceDB caches
 * indexes in memory, not data pages, so without it every query reads its rows from the
 * store (docs/notes/2026-12-06-bucket-cache.md).
 *
 * What is immutable, from Lance's layout of a table `<name>.lance/`: the data files
 * `data/<uuid>.lance`, the index files `_indices/<uuid>/<file>` and the deletion files
 * `_deletions/<fragment>-<version>-<id>.{arrow,bin}`, each written once under a name no
 * other write reuses. Manifests (`_versions/`, `_latest.manifest`), transaction files and
 * anything else pass through, so a table's current version is always the store's.
 *
 * LanceDB's requests are not checked beyond two things: they come over loopback, and they
 * name the access key made up for this process (a secret the process alone holds), so
 * another local user cannot borrow the configured keys through it. Only keys under
 * `<prefix>/lance/` may be asked for.
 */
import { randomBytes } from "node:crypto";
import type { ObjectStorage } from "../config-storage";
import { storageKey } from "../config-storage";
import { signRequest, UNSIGNED_PAYLOAD } from "../files/sign-request";
import { BlockCache } from "./block-cache";
import { type CacheCounters, CachedReads, cacheableRead, type UpstreamRequest } from "./cached-reads";

export interface BucketCache {
  /** The endpoint LanceDB connects to: `http://127.0.0.1:<port>`. */
  endpoint: string;
  /** The credentials LanceDB signs with; the cache accepts no others. */
  accessKeyId: string;
  secretAccessKey: string;
  counters: CacheCounters;
  /** Bytes the cache directory holds. */
  bytes(): number;
  stop(): void;
}

export interface BucketCacheOptions {
  /** The cache's directory (`<data>/cache/bucket`). */
  dir: string;
  maxBytes: number;
}

/** Headers of LanceDB's request the store must see (and that are signed again). */
const FORWARDED =
  /^(content-type|content-md5|content-encoding|content-disposition|cache-control|range|if-.*|x-amz-.*)$/;
/** Set anew on the way out. */
const RESIGNED = new Set(["x-amz-date", "x-amz-content-sha256", "x-amz-security-token"]);
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade"]);

export function startBucketCache(store: ObjectStorage, opts: BucketCacheOptions): BucketCache {
  const root = `${storageKey(store, "lance")}/`;
  const accessKeyId = `ragdcache${randomBytes(12).toString("hex")}`;
  const upstream = (req: UpstreamRequest) => send(store, req);
  const reads = new CachedReads(new BlockCache(opts.dir, opts.maxBytes), upstream);
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 255,
    maxRequestBodySize: 6 * 1024 ** 3,
    fetch: async (req) => {
      try {
        return await handle(req);
      } catch (err) {
        return new Response(String(err), { status: 502 });
      }
    },
  });

  async function handle(req: Request): Promise<Response> {
    if (!signedWith(req, accessKeyId)) return refuse(403, "AccessDenied");
    const url = new URL(req.url);
    const target = parsePath(url.pathname);
    if (target === null || target.bucket !== store.bucket) return refuse(403, "AccessDenied");
    const query = Object.fromEntries(url.searchParams);
    const body = req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.from(await req.arrayBuffer());
    const deleted = target.key === "" && req.method === "POST" && "delete" in query ? keysOfDelete(body) : null;
    if (!within(root, target.key, query, deleted)) return refuse(403, "AccessDenied");
    const headers = forwardedHeaders(req.headers);
    if (cacheableRead(req.method, target.key, query, headers)) return reads.get(req.method, target.key, headers);
    reads.counters.forwarded++;
    const res = await upstream({
      method: req.method,
      key: target.key,
      query,
      headers,
      body,
      payloadHash: req.headers.get("x-amz-content-sha256"),
    });
    if (req.method !== "GET" && req.method !== "HEAD") {
      for (const key of deleted ?? (target.key ? [target.key] : [])) await reads.invalidate(key);
    }
    return res;
  }

  return {
    endpoint: `http://127.0.0.1:${server.port}`,
    accessKeyId,
    secretAccessKey: randomBytes(24).toString("hex"),
    counters: reads.counters,
    bytes: () => reads.bytes(),
    stop: () => void server.stop(true),
  };
}

/** The request sent on to the store, signed with its keys; the answer as LanceDB gets it. */
async function send(store: ObjectStorage, req: UpstreamRequest): Promise<Response> {
  const signed = signRequest(store, {
    method: req.method,
    key: req.key,
    query: req.query,
    headers: req.headers,
    payloadHash: req.payloadHash ?? UNSIGNED_PAYLOAD,
  });
  const res = await fetch(signed.url, {
    method: req.method,
    headers: signed.headers,
    body: req.body,
    redirect: "manual",
    decompress: false,
  } as RequestInit);
  const headers = new Headers();
  res.headers.forEach((value, name) => {
    if (!HOP_BY_HOP.has(name)) headers.set(name, value);
  });
  // Whole, not streamed: a streamed body goes out chunked, without the Content-Length LanceDB requires.
  const body = req.method === "HEAD" ? null : await res.arrayBuffer();
  return new Response(body, { status: res.status, headers });
}

/** The request names this process's made-up access key (SigV4 header or query form). */
function signedWith(req: Request, accessKeyId: string): boolean {
  const auth = req.headers.get("authorization") ?? new URL(req.url).searchParams.get("X-Amz-Credential") ?? "";
  return auth.includes(`Credential=${accessKeyId}/`) || auth.startsWith(`${accessKeyId}/`);
}

/** `/<bucket>/<key>` (path style), each segment decoded; null for a key that would leave its bucket. */
function parsePath(pathname: string): { bucket: string; key: string } | null {
  let parts: string[];
  try {
    parts = pathname.slice(1).split("/").map(decodeURIComponent);
  } catch {
    return null;
  }
  if (parts.some((p) => p === "." || p === "..")) return null;
  const [bucket = "", ...rest] = parts;
  return { bucket, key: rest.join("/") };
}

/** Every key the request touches lies under `<prefix>/lance/`. */
function within(root: string, key: string, query: Record<string, string>, deleted: string[] | null): boolean {
  if (key !== "") return key.startsWith(root);
  if (deleted !== null) return deleted.length > 0 && deleted.every((k) => k.startsWith(root));
  const prefix = query.prefix ?? "";
  return prefix.startsWith(root) || `${prefix}/` === root;
}

/** The keys of a DeleteObjects request's XML body. */
function keysOfDelete(body: Buffer | undefined): string[] {
  const xml = body?.toString("utf8") ?? "";
  return [...xml.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => unescapeXml(m[1]!));
}

function unescapeXml(s: string): string {
  return s.replace(
    /&(lt|gt|quot|apos|amp|#(\d+)|#x([0-9a-fA-F]+));/g,
    (_, name: string, dec?: string, hex?: string) => {
      if (dec) return String.fromCodePoint(Number(dec));
      if (hex) return String.fromCodePoint(Number.parseInt(hex, 16));
      return { lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" }[name] ?? "";
    },
  );
}

function forwardedHeaders(from: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  from.forEach((value, name) => {
    if (FORWARDED.test(name) && !RESIGNED.has(name)) out[name] = value;
  });
  return out;
}

function refuse(status: number, code: string): Response {
  return new Response(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code></Error>`, {
    status,
    headers: { "content-type": "application/xml" },
  });
}
