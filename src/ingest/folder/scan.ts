/**
 * A folder source's sync, as a worker runs it: walks the folder (the walk rules of
 * `ragd ingest`: no hidden files, no links followed, no devices, sockets or FIFOs) and
 * hashes each file whose size or modification time differs from what the source holds.
 * What to add, change and delete is decided by the main thread (sync/folder-sync.ts).
 */
import { realpath } from "node:fs/promises";
import { hashFile, walkFolder } from "../../tools/folder-walk";
import { isUnder } from "../../core/folder-settings";
import type { JobEvent } from "../job-types";
import { FolderError, type FolderJob, type FolderScan } from "./types";

/** Why a path cannot be read, in a few words: the error's code, else its message. */
const reasonOf = (err: unknown) => (err as NodeJS.ErrnoException).code ?? (err as Error).message;

/** The folder's real path, checked to be under an allowed root; a FolderError when it is gone or outside. */
async function checkedRoot(folder: FolderJob): Promise<string> {
  const { path } = folder.settings;
  let real: string;
  try {
    real = await realpath(path);
  } catch (err) {
    throw new FolderError(`the folder ${path} cannot be read (${reasonOf(err)}); nothing was deleted`);
  }
  if (!folder.roots.some((r) => isUnder(real, r)))
    throw new FolderError(`the folder ${path} is not under a folder the server allows; nothing was deleted`);
  return real;
}

/** Walks and hashes the folder of `job`, then reports it; a FolderError when the folder itself cannot be read. */
export async function runFolderScan(
  jobId: string,
  folder: FolderJob,
  emit: (e: JobEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  if (folder.skip) return emit({ type: "folder-scanned", jobId, scan: null });
  const root = await checkedRoot(folder);
  const rules = {
    include: folder.settings.include.map((p) => new Bun.Glob(p)),
    exclude: folder.settings.exclude.map((p) => new Bun.Glob(p)),
  };
  const walk = await walkFolder(root, rules).catch((err: unknown) => {
    throw new FolderError(
      `the folder ${folder.settings.path} cannot be listed (${reasonOf(err)}); nothing was deleted`,
    );
  });
  const scan: FolderScan = { files: [], failures: [], unlisted: walk.unlisted.map((u) => u.path) };
  const fail = (path: string, reason: string) => scan.failures.push({ path, reason });
  for (const s of walk.skipped) fail(s.path, s.reason);
  for (const u of walk.unlisted) fail(u.path, `the folder cannot be listed (${u.reason})`);
  const maxBytes = folder.settings.maxFileMb * 1024 * 1024;
  for (const f of walk.files) {
    if (signal.aborted) return;
    if (f.size > maxBytes) {
      fail(f.path, `larger than ${folder.settings.maxFileMb} MB`);
      continue;
    }
    const known = folder.known[f.path];
    const same = known?.hash && known.size === f.size && known.modifiedAt === f.modifiedAt;
    try {
      const hash = same ? known.hash! : await hashFile(f.absolute, f.size);
      scan.files.push({ path: f.path, size: f.size, modifiedAt: f.modifiedAt, hash });
    } catch (err) {
      fail(f.path, `cannot be read (${reasonOf(err)})`);
    }
  }
  emit({ type: "folder-scanned", jobId, scan });
}
