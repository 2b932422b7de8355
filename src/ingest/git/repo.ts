/**
 * A Git source's clone on this machine: a bare, shallow repository at `<data>/git/<source
 * id>` (named by the source's id, never by its URL), fetched with isomorphic-git over
 * git/http.ts. Nothing here runs a `git` program; submodules and LFS content are not fetched.
 */
import * as fs from "node:fs";
import { join } from "node:path";
import git from "isomorphic-git";
import { gitHttp, splitAuth } from "./http";
import { GitError } from "./types";

/** The folder of a source's clone under the data directory. */
export const cloneDir = (dataDir: string, sourceId: string) => join(dataDir, "git", sourceId);

/** isomorphic-git's caches (pack indexes), one per clone, the few used last kept. */
const caches = new Map<string, object>();
const KEPT = 4;

export function cacheOf(dir: string): object {
  let c = caches.get(dir);
  if (c) caches.delete(dir);
  else c = {};
  caches.set(dir, c);
  for (const old of caches.keys()) if (caches.size > KEPT) caches.delete(old);
  return c;
}

export interface FetchOrder {
  /** The clone URL, credentials included (they go to its origin only). */
  url: string;
  dir: string;
  branch: string | null;
  fetch: { allow: string[]; deny: string[] };
  maxBytes: number;
  signal: AbortSignal;
}

/** The URL for messages: no credentials. */
export const shown = (url: string) => splitAuth(url).url;

/** Fetches the branch's head (depth 1) into the clone, making it first; the head's commit id. */
export async function fetchHead(o: FetchOrder): Promise<string> {
  const { url, auth } = splitAuth(o.url);
  const ref = o.branch ?? "HEAD";
  try {
    if (!fs.existsSync(join(o.dir, "HEAD"))) {
      fs.mkdirSync(o.dir, { recursive: true });
      await git.init({ fs, gitdir: o.dir, bare: true });
      await git.addRemote({ fs, gitdir: o.dir, remote: "origin", url });
    }
    const http = gitHttp({ ...o.fetch, maxBytes: o.maxBytes, signal: o.signal }, auth);
    const r = await git.fetch({
      fs,
      http,
      gitdir: o.dir,
      url,
      ref,
      remoteRef: ref,
      singleBranch: true,
      depth: 1,
      tags: false,
      cache: cacheOf(o.dir),
    });
    if (!r.fetchHead) throw new Error(o.branch ? `no branch ${o.branch}` : "the repository is empty");
    return r.fetchHead;
  } catch (err) {
    const missing = (err as { code?: string }).code === "NotFoundError" && o.branch;
    const why = o.signal.aborted
      ? "it took longer than the sync may"
      : missing
        ? `no branch ${o.branch}`
        : reasonOf(err);
    throw new GitError(`the repository ${url} cannot be fetched (${why}); nothing was deleted`);
  }
}

/** An error in a few words, without a URL's credentials. */
export function reasonOf(err: unknown): string {
  const e = err as { code?: string; message?: string; data?: { statusCode?: number; statusMessage?: string } };
  if (e.data?.statusCode) return `HTTP ${e.data.statusCode} ${e.data.statusMessage ?? ""}`.trim();
  return String(e.message ?? err).replace(/\/\/[^/@\s]*@/g, "//");
}

/** A blob's bytes from the clone; null when the clone does not hold it. */
export async function readBlobOrNull(dir: string, oid: string): Promise<Uint8Array | null> {
  try {
    return (await git.readBlob({ fs, gitdir: dir, oid, cache: cacheOf(dir) })).blob;
  } catch (err) {
    if ((err as { code?: string }).code === "NotFoundError") return null;
    throw err;
  }
}

/** Removes a source's clone (its source deleted); nothing when it has none. */
export async function removeClone(dataDir: string, sourceId: string): Promise<void> {
  const dir = cloneDir(dataDir, sourceId);
  caches.delete(dir);
  await fs.promises.rm(dir, { recursive: true, force: true });
}
