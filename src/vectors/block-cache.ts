/**
 * The bucket cache's files (vectors/bucket-cache.ts): fixed blocks of objects that never
 * change, kept in one directory of the data directory (`<data>/cache/bucket`) and bounded
 * in size. An object's files are named by the SHA-256 of its key, never by the key
 * itself (keys come from outside): `<hash>.m` holds what a response says of it (size,
 * ETag, date), `<hash>.<n>` its n-th block. Least recently used files go first when the
 * directory outgrows its bound; the order survives a restart through the files' mtimes,
 * which a read renews (at most once a minute per file). Files are written whole under a
 * temporary name and renamed, so a crash leaves no half block.
 */
import { allDone } from "../tools/all-done";
import { createHash, randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, statSync } from "node:fs";
import { rm, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** What a GET or HEAD of the object answered: all a cached answer needs to say of it. */
export interface ObjectMeta {
  size: number;
  etag: string;
  lastModified: string;
}

/** Renewing a file's mtime costs a system call: not more often than this. */
const TOUCH_EVERY_MS = 60_000;
/** Eviction frees a little more than the excess, so that it does not run on every write. */
const EVICT_TO = 0.9;

interface Entry {
  bytes: number;
  touchedMs: number;
}

export class BlockCache {
  /** File name → size, least recently used first (a Map keeps insertion order). */
  private readonly entries = new Map<string, Entry>();
  private total = 0;
  /** What the `.m` files say, once read: every request of an object asks for it. */
  private readonly metas = new Map<string, ObjectMeta>();

  constructor(
    readonly dir: string,
    readonly maxBytes: number,
  ) {
    mkdirSync(dir, { recursive: true });
    const found: [string, Entry][] = [];
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (!/^[0-9a-f]{64}\.(m|\d+)$/.test(name)) {
        rmSync(path, { force: true }); // a temporary file a crash left
        continue;
      }
      const st = statSync(path);
      found.push([name, { bytes: st.size, touchedMs: st.mtimeMs }]);
    }
    found.sort((a, b) => a[1].touchedMs - b[1].touchedMs);
    for (const [name, entry] of found) this.add(name, entry);
  }

  /** Bytes the directory holds. */
  get bytes(): number {
    return this.total;
  }

  meta(key: string): ObjectMeta | null {
    const name = `${hashOf(key)}.m`;
    const known = this.metas.get(name);
    if (known && this.use(name)) return known; // most recently used: the blocks need it
    const data = this.read(name);
    if (!data) return null;
    const meta = JSON.parse(data.toString("utf8")) as ObjectMeta;
    this.metas.set(name, meta);
    return meta;
  }

  async putMeta(key: string, meta: ObjectMeta): Promise<void> {
    const name = `${hashOf(key)}.m`;
    await this.write(name, Buffer.from(JSON.stringify(meta)));
    this.metas.set(name, meta);
  }

  /** Bytes `from` to `to` (exclusive) of the object's block `index`, or null when it is not kept. */
  readBlock(key: string, index: number, from: number, to: number): Buffer | null {
    return this.read(`${hashOf(key)}.${index}`, from, to);
  }

  /** Like readBlock, into `target` at `at`; false when the block is not kept. */
  readBlockInto(key: string, index: number, from: number, to: number, target: Buffer, at: number): boolean {
    const name = `${hashOf(key)}.${index}`;
    const entry = this.entries.get(name);
    if (!entry || to > entry.bytes) return false;
    try {
      readPart(join(this.dir, name), from, to, target.subarray(at, at + to - from));
    } catch {
      this.drop(name);
      return false;
    }
    return this.use(name);
  }

  /** The file of the object's block `index`, counted as used; null when it is not kept. */
  blockFile(key: string, index: number): string | null {
    const name = `${hashOf(key)}.${index}`;
    return this.use(name) ? join(this.dir, name) : null;
  }

  writeBlock(key: string, index: number, bytes: Buffer): Promise<void> {
    return this.write(`${hashOf(key)}.${index}`, bytes);
  }

  /** Forgets everything of the object: after a write or delete of its key, or a changed ETag. */
  async invalidate(key: string): Promise<void> {
    const prefix = `${hashOf(key)}.`;
    const names = [...this.entries.keys()].filter((n) => n.startsWith(prefix));
    for (const name of names) this.drop(name);
    await allDone(names.map((n) => rm(join(this.dir, n), { force: true })));
  }

  private read(name: string, from = 0, to = Number.POSITIVE_INFINITY): Buffer | null {
    const entry = this.entries.get(name);
    if (!entry) return null;
    let data: Buffer;
    try {
      data = readPart(join(this.dir, name), from, Math.min(to, entry.bytes));
    } catch {
      this.drop(name); // evicted meanwhile, or removed by hand
      return null;
    }
    this.use(name);
    return data;
  }

  /** Moves the file to the most recently used end; its mtime says so too, for the next start. */
  private use(name: string): boolean {
    const entry = this.entries.get(name);
    if (!entry) return false;
    this.entries.delete(name);
    this.entries.set(name, entry);
    const now = Date.now();
    if (now - entry.touchedMs > TOUCH_EVERY_MS) {
      entry.touchedMs = now;
      utimes(join(this.dir, name), now / 1000, now / 1000).catch(() => {});
    }
    return true;
  }

  private async write(name: string, bytes: Buffer): Promise<void> {
    if (bytes.length > this.maxBytes) return;
    const path = join(this.dir, name);
    const temp = `${path}.${randomBytes(6).toString("hex")}.tmp`;
    await writeFile(temp, bytes);
    renameSync(temp, path);
    this.drop(name);
    this.add(name, { bytes: bytes.length, touchedMs: Date.now() });
    if (this.total > this.maxBytes) this.evict();
  }

  private evict(): void {
    for (const name of this.entries.keys()) {
      if (this.total <= this.maxBytes * EVICT_TO) break;
      this.drop(name);
      rmSync(join(this.dir, name), { force: true });
    }
  }

  private add(name: string, entry: Entry): void {
    this.entries.set(name, entry);
    this.total += entry.bytes;
  }

  private drop(name: string): void {
    const entry = this.entries.get(name);
    if (!entry) return;
    this.entries.delete(name);
    this.metas.delete(name);
    this.total -= entry.bytes;
  }
}

/**
 * Bytes from..to of a file, read at once: a block read from the page cache takes tens of
 * microseconds, where an asynchronous read's hand-off to another thread took longer than that.
 */
function readPart(path: string, from: number, to: number, out: Buffer = Buffer.allocUnsafe(to - from)): Buffer {
  const fd = openSync(path, "r");
  try {
    const n = readSync(fd, out, 0, out.length, from);
    if (n !== out.length) throw new Error("a block shorter than written");
    return out;
  } finally {
    closeSync(fd);
  }
}

function hashOf(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}
