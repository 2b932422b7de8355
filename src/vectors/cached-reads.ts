/**
 * The bucket cache's reads (bucket-cache.ts): a GET or HEAD of an immutable Lance file
 * answered from the blocks kept on disk (block-cache.ts), the missing blocks fetched from
 * the store, consecutive ones in one ranged GET, and a block several requests wait for
 * fetched once. One rule owns what is immutable: `cacheableRead`.
 */

import { allDone } from "../tools/all-done";
import type { BlockCache, ObjectMeta } from "./block-cache";

/** A request to the store as the cache forwards it (bucket-cache.ts signs and sends it). */
export interface UpstreamRequest {
  method: string;
  key: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body?: Buffer;
  payloadHash?: string | null;
}

export const BLOCK_BYTES = 1024 * 1024;

/**
 * Files Lance writes once under a name it never reuses: data files, index files and
 * deletion files of a table (`<name>.lance/…`). Manifests and everything else are not.
 */
const IMMUTABLE = /\.lance\/(data\/[^/]+\.lance|_indices\/[^/]+\/[^/]+|_deletions\/[^/]+\.(arrow|bin))$/;

/** A plain read of an immutable file: no sub-resource, no condition (those go to the store). */
export function cacheableRead(
  method: string,
  key: string,
  query: Record<string, string>,
  headers: Record<string, string>,
): boolean {
  return (
    (method === "GET" || method === "HEAD") &&
    IMMUTABLE.test(key) &&
    Object.keys(query).length === 0 &&
    !Object.keys(headers).some((h) => h.startsWith("if-") || h.startsWith("x-amz-server-side"))
  );
}

export interface CacheCounters {
  /** Requests sent on to the store as they came (writes, listings, manifests). */
  forwarded: number;
  /** Ranged GETs sent to the store for blocks. */
  upstreamGets: number;
  /** HEADs sent to the store to learn an object's size. */
  upstreamHeads: number;
  /** Reads of immutable files answered (from the directory, the store or both). */
  reads: number;
  /** Blocks read from the cache directory. */
  blockHits: number;
  /** Blocks fetched from the store. */
  blockMisses: number;
}

type Upstream = (req: UpstreamRequest) => Promise<Response>;

export class CachedReads {
  readonly counters: CacheCounters = {
    forwarded: 0,
    reads: 0,
    upstreamGets: 0,
    upstreamHeads: 0,
    blockHits: 0,
    blockMisses: 0,
  };
  /** Blocks being fetched, by `<key>\n<index>`: a second reader waits for the first fetch. */
  private readonly fetching = new Map<string, Promise<Buffer>>();

  constructor(
    private readonly blocks: BlockCache,
    private readonly upstream: Upstream,
  ) {}

  bytes(): number {
    return this.blocks.bytes;
  }

  invalidate(key: string): Promise<void> {
    return this.blocks.invalidate(key);
  }

  async get(method: string, key: string, headers: Record<string, string>): Promise<Response> {
    this.counters.reads++;
    const meta = this.blocks.meta(key) ?? (await this.learn(key));
    if (meta === null || meta instanceof Response) return meta ?? this.pass(method, key, headers);
    if (method === "HEAD") return new Response(null, { status: 200, headers: describe(meta, meta.size) });
    const range = parseRange(headers.range, meta.size);
    if (range === null) return this.pass(method, key, headers); // an unsatisfiable or unusual range: the store answers
    const body =
      this.sendable(key, range.start, range.end) ??
      this.kept(key, range.start, range.end) ??
      (await this.read(key, meta, range.start, range.end));
    if (body === null) return this.pass(method, key, headers); // the object changed under its key
    const out = describe(meta, range.end - range.start + 1);
    if (headers.range === undefined) return new Response(body, { status: 200, headers: out });
    out.set("content-range", `bytes ${range.start}-${range.end}/${meta.size}`);
    return new Response(body, { status: 206, headers: out });
  }

  /**
   * A range within one kept block, as the part of its file that the server sends itself
   * (from the page cache to the socket, no copy through this thread): most of LanceDB's reads.
   */
  private sendable(key: string, start: number, end: number): Blob | null {
    const index = Math.floor(start / BLOCK_BYTES);
    if (Math.floor(end / BLOCK_BYTES) !== index) return null;
    const path = this.blocks.blockFile(key, index);
    if (path === null) return null;
    this.counters.blockHits++;
    return Bun.file(path).slice(start - index * BLOCK_BYTES, end + 1 - index * BLOCK_BYTES);
  }

  /** The object's size, ETag and date from a HEAD, kept; the store's answer when it is not 200. */
  private async learn(key: string): Promise<ObjectMeta | Response> {
    this.counters.upstreamHeads++;
    const res = await this.upstream({ method: "HEAD", key, query: {}, headers: {} });
    const meta = res.status === 200 ? metaOf(res.headers) : null;
    if (meta === null) return res;
    await this.blocks.putMeta(key, meta);
    return meta;
  }

  private pass(method: string, key: string, headers: Record<string, string>): Promise<Response> {
    return this.upstream({ method, key, query: {}, headers });
  }

  /** A range over several blocks, all kept: read straight into one buffer. */
  private kept(key: string, start: number, end: number): Uint8Array<ArrayBuffer> | null {
    const out = Buffer.allocUnsafe(end - start + 1);
    const first = Math.floor(start / BLOCK_BYTES);
    for (let i = first; i <= Math.floor(end / BLOCK_BYTES); i++) {
      const from = Math.max(start, i * BLOCK_BYTES);
      const to = Math.min(end + 1, (i + 1) * BLOCK_BYTES);
      if (!this.blocks.readBlockInto(key, i, from - i * BLOCK_BYTES, to - i * BLOCK_BYTES, out, from - start))
        return null;
    }
    this.counters.blockHits += Math.floor(end / BLOCK_BYTES) - first + 1;
    return new Uint8Array(out.buffer, out.byteOffset, out.length) as Uint8Array<ArrayBuffer>;
  }

  /** Bytes start..end (inclusive) from the blocks; null when the store's ETag is no longer the kept one. */
  private async read(key: string, meta: ObjectMeta, start: number, end: number): Promise<Blob | null> {
    const first = Math.floor(start / BLOCK_BYTES);
    const last = Math.floor(end / BLOCK_BYTES);
    /** The part of block i the request wants, as offsets within the block. */
    const within = (i: number): [number, number] => [
      Math.max(start, i * BLOCK_BYTES) - i * BLOCK_BYTES,
      Math.min(end + 1, (i + 1) * BLOCK_BYTES) - i * BLOCK_BYTES,
    ];
    const kept = Array.from({ length: last - first + 1 }, (_, i) =>
      this.blocks.readBlock(key, first + i, ...within(first + i)),
    );
    const pending: Promise<Buffer>[] = [];
    let run: number[] = [];
    const flush = () => {
      if (run.length) pending.push(...this.fetchRun(key, meta, run).map((p, j) => slice(p, within(run[j]!))));
      run = [];
    };
    for (let i = first; i <= last; i++) {
      const part = kept[i - first];
      const waiting = this.fetching.get(`${key}\n${i}`);
      if (part) this.counters.blockHits++;
      if (part || waiting) {
        flush();
        pending.push(part ? Promise.resolve(part) : slice(waiting!, within(i)));
      } else {
        run.push(i);
      }
    }
    flush();
    try {
      const parts = await allDone(pending);
      const whole = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
      return new Blob([new Uint8Array(whole.buffer, whole.byteOffset, whole.length) as Uint8Array<ArrayBuffer>]);
    } catch (err) {
      if (err instanceof ChangedObject) return null;
      throw err;
    }
  }

  /** One ranged GET for consecutive missing blocks; one promise per block, registered while it runs. */
  private fetchRun(key: string, meta: ObjectMeta, indexes: number[]): Promise<Buffer>[] {
    const first = indexes[0]!;
    const last = indexes[indexes.length - 1]!;
    const from = first * BLOCK_BYTES;
    const to = Math.min((last + 1) * BLOCK_BYTES, meta.size) - 1;
    this.counters.upstreamGets++;
    this.counters.blockMisses += indexes.length;
    const whole = (async () => {
      const res = await this.upstream({ method: "GET", key, query: {}, headers: { range: `bytes=${from}-${to}` } });
      if (res.status !== 206 && res.status !== 200)
        throw new Error(`the store answered ${res.status} to a read of ${key}`);
      const seen = metaOf(res.headers);
      const bytes = Buffer.from(await res.arrayBuffer());
      if (seen && seen.etag !== meta.etag) {
        await this.blocks.invalidate(key);
        throw new ChangedObject();
      }
      return res.status === 200 ? bytes.subarray(from, to + 1) : bytes;
    })();
    const out = indexes.map(async (index, i) => {
      const name = `${key}\n${index}`;
      try {
        const bytes = await whole;
        const block = bytes.subarray(i * BLOCK_BYTES, Math.min((i + 1) * BLOCK_BYTES, bytes.length));
        await this.blocks.writeBlock(key, index, Buffer.from(block));
        return block;
      } finally {
        this.fetching.delete(name);
      }
    });
    for (const [i, index] of indexes.entries()) this.fetching.set(`${key}\n${index}`, out[i]!);
    return out;
  }
}

class ChangedObject extends Error {}

async function slice(block: Promise<Buffer>, [from, to]: [number, number]): Promise<Buffer> {
  return (await block).subarray(from, to);
}

/** `bytes=a-b`, `bytes=a-` or `bytes=-n` (or none: the whole object), clamped to the object; null when not satisfiable. */
function parseRange(header: string | undefined, size: number): { start: number; end: number } | null {
  if (header === undefined) return size > 0 ? { start: 0, end: size - 1 } : null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return null;
  if (m[1] === "") {
    const n = Number(m[2]);
    return n > 0 && size > 0 ? { start: Math.max(0, size - n), end: size - 1 } : null;
  }
  const start = Number(m[1]);
  const end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  return start <= end && start < size ? { start, end } : null;
}

function metaOf(headers: Headers): ObjectMeta | null {
  const etag = headers.get("etag");
  const lastModified = headers.get("last-modified");
  const range = headers.get("content-range");
  const size = range ? Number(range.split("/")[1]) : Number(headers.get("content-length"));
  if (!etag || !lastModified || !Number.isSafeInteger(size)) return null;
  return { size, etag, lastModified };
}

function describe(meta: ObjectMeta, length: number): Headers {
  return new Headers({
    "content-length": String(length),
    etag: meta.etag,
    "last-modified": meta.lastModified,
    "accept-ranges": "bytes",
    "content-type": "application/octet-stream",
  });
}
