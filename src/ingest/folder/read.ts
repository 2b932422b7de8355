/**
 * Reads a folder source's file in an ingestion worker: a regular file (not a link) in a
 * folder still under the source's folder, and no larger than the source allows. The
 * folder may have changed since its sync: a file that is now a link, or a folder that
 * now leads elsewhere, is refused.
 *
 * The checks and a small file's read are synchronous: in a worker, three round trips to
 * the file system's thread pool cost a small file more than its bytes do
 * (docs/notes/2026-12-06-connected-first-sync.md); a large file is read without blocking.
 */
import { lstatSync, readFileSync, realpathSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { isUnder } from "../../core/folder-settings";
import { FolderError, type FolderFileRef } from "./types";

/** Files up to this size are read synchronously. */
const SYNC_READ_BYTES = 1024 * 1024;

export async function readFolderFile(f: FolderFileRef): Promise<Uint8Array> {
  const absolute = join(f.root, f.path);
  let s: ReturnType<typeof lstatSync>;
  let dir: string;
  try {
    s = lstatSync(absolute);
    dir = realpathSync(dirname(absolute));
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new FolderError(`${f.path} cannot be read from its folder (${e.code ?? e.message})`);
  }
  if (!s.isFile()) throw new FolderError(`${f.path} is no longer a regular file`);
  if (s.size > f.maxBytes) throw new FolderError(`${f.path} is larger than its folder source allows`);
  if (!isUnder(dir, f.root)) throw new FolderError(`${f.path} leads out of its folder`);
  return new Uint8Array(s.size <= SYNC_READ_BYTES ? readFileSync(absolute) : await readFile(absolute));
}
