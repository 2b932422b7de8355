/**
 * Reads a folder source's file in an ingestion worker: a regular file (not a link) in a
 * folder still under the source's folder, and no larger than the source allows. The
 * folder may have changed since its sync: a file that is now a link, or a folder that
 * now leads elsewhere, is refused.
 */
import { lstat, readFile, realpath } from "node:fs/promises";
import { dirname, join } from "node:path";
import { isUnder } from "../../core/folder-settings";
import { FolderError, type FolderFileRef } from "./types";

export async function readFolderFile(f: FolderFileRef): Promise<Uint8Array> {
  const absolute = join(f.root, f.path);
  const s = await lstat(absolute).catch((err: NodeJS.ErrnoException) => {
    throw new FolderError(`${f.path} cannot be read from its folder (${err.code ?? err.message})`);
  });
  if (!s.isFile()) throw new FolderError(`${f.path} is no longer a regular file`);
  if (s.size > f.maxBytes) throw new FolderError(`${f.path} is larger than its folder source allows`);
  if (!isUnder(await realpath(dirname(absolute)), f.root)) throw new FolderError(`${f.path} leads out of its folder`);
  return new Uint8Array(await readFile(absolute));
}
