/**
 * Reads a Git source's file in an ingestion worker: its blob, by id, from the source's
 * clone; a machine whose clone lacks it (another replica's sync) fetches the branch first.
 * A blob no longer at the head fails this file only: the next sync has its newer version.
 */
import { fetchHead, readBlobOrNull } from "./repo";
import { GitError, type GitFileRef } from "./types";

const FETCH_MS = 5 * 60_000;

export async function readGitFile(f: GitFileRef): Promise<Uint8Array> {
  let bytes = await readBlobOrNull(f.dir, f.oid);
  if (!bytes) {
    const order = { ...f, maxBytes: f.maxFetchBytes, signal: AbortSignal.timeout(FETCH_MS) };
    await fetchHead(order);
    bytes = await readBlobOrNull(f.dir, f.oid);
  }
  if (!bytes) throw new GitError(`${f.path} is no longer at the head of its branch`);
  if (bytes.byteLength > f.maxBytes) throw new GitError(`${f.path} is larger than its Git source allows`);
  return bytes;
}
