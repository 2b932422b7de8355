/**
 * A Git source's clone on this machine: a bare, shallow repository at `<data>/git/<source
 * id>` (named by the source's id, never by its URL), fetched with isomorphic-git over
 * git/http.ts. Nothing here runs a `git` program; submodules and LFS content are not fetched.
 */
import * as fs from "node:fs";
import { join } from "node:path";
import git, { type HttpClient } from "isomorphic-git";
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

/** The head commit the server names for the branch (or its default branch); null when it names none. */
async function remoteHead(http: HttpClient, url: string, branch: string | null): Promise<string | null> {
  const info = await git.getRemoteInfo2({ http, url, protocolVersion: 1 });
  const want = branch ? `refs/heads/${branch}` : "HEAD";
  return info.refs?.find((r) => r.ref === want)?.oid ?? null;
}

/**
 * Packs a clone may gather before it is made again: each fetch of a new head brings the
 * head's whole tree (depth 1, nothing is ever packed together). A clone made again lacks
 * the last commit synced: the next sync compares with the stored blob ids instead.
 */
const MAX_PACKS = 8;

/** Makes the clone (bare, its remote the URL without credentials) when it is not there, or holds too many packs. */
async function ensureClone(dir: string, url: string): Promise<void> {
  const packs = fs.existsSync(join(dir, "objects", "pack")) ? fs.readdirSync(join(dir, "objects", "pack")) : [];
  if (packs.filter((p) => p.endsWith(".pack")).length > MAX_PACKS) {
    caches.delete(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  if (fs.existsSync(join(dir, "HEAD"))) return;
  fs.mkdirSync(dir, { recursive: true });
  await git.init({ fs, gitdir: dir, bare: true });
  await git.addRemote({ fs, gitdir: dir, remote: "origin", url });
}

/**
 * The branch's head commit, fetched into the clone unless the clone holds it already:
 * the server's refs are read first, so an unchanged branch costs one request. Only the
 * head is fetched (depth 1): history is never downloaded.
 */
export async function fetchHead(o: FetchOrder): Promise<string> {
  const { url, auth } = splitAuth(o.url);
  const ref = o.branch ?? "HEAD";
  try {
    const http = gitHttp({ ...o.fetch, maxBytes: o.maxBytes, signal: o.signal }, auth);
    const head = await remoteHead(http, url, o.branch);
    if (!head) throw new Error(o.branch ? `no branch ${o.branch}` : "the repository is empty");
    if (await holds(o.dir, head)) return head;
    await ensureClone(o.dir, url);
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

/** True when the clone holds the commit `oid`. */
async function holds(dir: string, oid: string): Promise<boolean> {
  try {
    await git.readCommit({ fs, gitdir: dir, oid, cache: cacheOf(dir) });
    return true;
  } catch {
    return false;
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

/**
 * Removes a source's clone (its source deleted); nothing when it has none. A fetch still
 * writing into it (its job not yet stopped) can add a file while the folder goes
 * (ENOTEMPTY): Node's rm tries again; what such a job writes after that goes once it has
 * stopped (git/clones.ts, removeCloneIfGone).
 */
export async function removeClone(dataDir: string, sourceId: string): Promise<void> {
  const dir = cloneDir(dataDir, sourceId);
  caches.delete(dir);
  await fs.promises.rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
}
