/**
 * The files of a folder, as `ragd ingest` sends them and a folder source syncs them: every
 * regular file under it, named by its path relative to the folder with `/` between parts. Hidden files and folders (a name
 * starting with `.`) are left out, symbolic links under the folder are not followed (a
 * link could lead out of the folder, or round in a loop), and devices, sockets and FIFOs
 * are skipped. A folder under it that cannot be listed is reported, and the walk goes on.
 */
import { createHash } from "node:crypto";
import { createReadStream, type Dirent } from "node:fs";
import { lstat, readdir, readFile, stat } from "node:fs/promises";
import { extname, join, relative, sep } from "node:path";

export interface LocalFile {
  /** Path relative to the folder, `/`-separated: the document's external id (after the prefix). */
  path: string;
  absolute: string;
  size: number;
  modifiedAt: string;
}

/** What a walk found, what it left out (links and special files) with why, and the folders it could not list. */
export interface Walk {
  files: LocalFile[];
  skipped: { path: string; reason: string }[];
  /** Folders under the root whose entries are unknown: what was sent from them before stays. */
  unlisted: { path: string; reason: string }[];
}

/** Globs a relative path must match (any of `include`, none of `exclude`) to be sent. */
export interface PathRules {
  include: Bun.Glob[];
  exclude: Bun.Glob[];
}

/** The folder's files in path order; throws when `root` is not a readable folder. */
export async function walkFolder(root: string, rules: PathRules): Promise<Walk> {
  // The folder named may itself be a link to one; only links under it are left alone.
  const top = await stat(root);
  if (!top.isDirectory()) throw new Error(`${root} is not a folder`);
  const out: Walk = { files: [], skipped: [], unlisted: [] };
  const pending = [root];
  while (pending.length) {
    const dir = pending.pop()!;
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      if (dir === root) throw err; // an unreadable root is nothing done
      const path = relative(root, dir).split(sep).join("/");
      out.unlisted.push({ path, reason: (err as NodeJS.ErrnoException).code ?? (err as Error).message });
      continue;
    }
    for (const entry of entries) {
      if (entry.name.startsWith(".")) continue;
      const absolute = join(dir, entry.name);
      const path = relative(root, absolute).split(sep).join("/");
      if (entry.isDirectory()) pending.push(absolute);
      else if (entry.isSymbolicLink()) out.skipped.push({ path, reason: "a symbolic link (not followed)" });
      else if (!entry.isFile()) out.skipped.push({ path, reason: "not a regular file" });
      else if (wanted(path, rules)) {
        const s = await lstat(absolute);
        out.files.push({ path, absolute, size: s.size, modifiedAt: s.mtime.toISOString() });
      }
    }
  }
  out.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return out;
}

/** Whether a relative path is taken under `rules` (folder walks and bucket listings alike). */
export function wanted(path: string, rules: PathRules): boolean {
  if (rules.include.length && !rules.include.some((g) => g.match(path))) return false;
  return !rules.exclude.some((g) => g.match(path));
}

/** Files up to this size are hashed from one read: a stream's set-up costs more than their bytes (3–6×). */
const WHOLE_READ_BYTES = 1024 * 1024;

/**
 * SHA-256 (hex) of a file's bytes, the hash the server compares: read at once when `size`
 * (from the walk) is small, else as a stream.
 */
export async function hashFile(absolute: string, size = Number.POSITIVE_INFINITY): Promise<string> {
  if (size <= WHOLE_READ_BYTES)
    return createHash("sha256")
      .update(await readFile(absolute))
      .digest("hex");
  return new Promise((resolve, reject) => {
    const h = createHash("sha256");
    createReadStream(absolute)
      .on("data", (chunk) => h.update(chunk))
      .on("error", reject)
      .on("end", () => resolve(h.digest("hex")));
  });
}

/** The metadata a file's document gets: where it came from, for filters. */
export function fileMetadata(f: LocalFile): Record<string, string | number> {
  return { path: f.path, extension: extname(f.path).slice(1).toLowerCase(), size: f.size, modifiedAt: f.modifiedAt };
}
