/**
 * What changed between two trees of a Git source's clone: a walk of both that skips every
 * subtree whose id is the same on both sides, so an unchanged folder is never read. A
 * tree against nothing lists it whole (a first sync, or a base gone after a force-push).
 */
import * as fs from "node:fs";
import git, { type TreeEntry } from "isomorphic-git";
import { cacheOf } from "./repo";

/** An entry at the new head: a blob, a link (mode 120000) or a submodule (160000). */
export interface Entry {
  path: string;
  oid: string;
  mode: string;
}

export interface TreeDiff {
  /** Entries new or other at the new tree. */
  changed: Entry[];
  /** Paths of blobs and links the old tree had and the new one has not. */
  gone: string[];
}

const isTree = (e: TreeEntry | undefined) => e?.type === "tree";

async function entries(dir: string, oid: string | null): Promise<Map<string, TreeEntry>> {
  if (!oid) return new Map();
  const { tree } = await git.readTree({ fs, gitdir: dir, oid, cache: cacheOf(dir) });
  return new Map(tree.map((e) => [e.path, e]));
}

/** The changes from tree `from` (null: none) to tree `to`. */
export async function diffTrees(dir: string, from: string | null, to: string): Promise<TreeDiff> {
  const out: TreeDiff = { changed: [], gone: [] };
  await walk(dir, from, to, "", out);
  return out;
}

async function walk(dir: string, from: string | null, to: string | null, prefix: string, out: TreeDiff) {
  const [a, b] = await Promise.all([entries(dir, from), entries(dir, to)]);
  for (const name of new Set([...a.keys(), ...b.keys()])) {
    const old = a.get(name);
    const now = b.get(name);
    if (old && now && old.oid === now.oid && old.mode === now.mode) continue;
    const path = prefix + name;
    const oldTree = isTree(old) ? old!.oid : null;
    const newTree = isTree(now) ? now!.oid : null;
    if (oldTree || newTree) await walk(dir, oldTree, newTree, `${path}/`, out);
    if (old && !oldTree && (!now || newTree)) out.gone.push(path);
    if (now && !newTree) out.changed.push({ path, oid: now.oid, mode: now.mode });
  }
}

/** The commit's tree id and author date; null when the clone does not hold the commit. */
export async function commitOf(dir: string, oid: string): Promise<{ tree: string; authorDate: string } | null> {
  try {
    const { commit } = await git.readCommit({ fs, gitdir: dir, oid, cache: cacheOf(dir) });
    return { tree: commit.tree, authorDate: new Date(commit.author.timestamp * 1000).toISOString() };
  } catch {
    return null;
  }
}
