/**
 * A Git source's sync, as a worker runs it: fetches the branch's head into the source's
 * clone, then finds what changed since the last commit taken, by the two commits' trees;
 * when that commit is no longer in the clone (a new machine, a clone removed), by the
 * head's tree against the blob ids the source holds. Each new or changed blob is read
 * for its size; what to add, change and delete is decided by the main thread (sync/git-sync.ts).
 */
import type { JobEvent } from "../job-types";
import { commitOf, diffTrees, type Entry, type TreeDiff } from "./diff";
import { fetchHead, readBlobOrNull } from "./repo";
import { GitError, type GitJob, type GitScan } from "./types";

const LFS_POINTER = "version https://git-lfs.github.com/spec/";

/** The head's whole tree against the blob ids the source holds. */
async function againstStored(dir: string, tree: string, known: Record<string, string>): Promise<TreeDiff> {
  const all = await diffTrees(dir, null, tree);
  const present = new Set(all.changed.map((e) => e.path));
  return {
    changed: all.changed.filter((e) => known[e.path] !== e.oid),
    gone: Object.keys(known).filter((p) => !present.has(p)),
  };
}

/** Why an entry is not taken, or null: links, submodules, large files and LFS pointers are not. */
function refusal(e: Entry, bytes: Uint8Array | null, maxFileMb: number): string | null {
  if (e.mode === "120000") return "a link (links are not followed)";
  if (e.mode === "160000") return "a submodule (submodules are not fetched)";
  if (!bytes) return "its blob is missing from the fetched commit";
  if (bytes.byteLength > maxFileMb * 1024 * 1024) return `larger than ${maxFileMb} MB`;
  if (bytes.byteLength < 512 && Buffer.from(bytes.subarray(0, LFS_POINTER.length)).toString() === LFS_POINTER)
    return "a Git LFS pointer (LFS content is not fetched)";
  return null;
}

/** Fetches, diffs and reports the sync of `job`; a GitError when the repository cannot be fetched. */
export async function runGitSync(
  jobId: string,
  job: GitJob,
  emit: (e: JobEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  if (job.skip) return emit({ type: "git-synced", jobId, scan: null });
  const budget = AbortSignal.any([signal, AbortSignal.timeout(job.budgetMs)]);
  const maxBytes = job.settings.maxTotalMb * 1024 * 1024;
  const order = { url: job.url, dir: job.dir, branch: job.settings.branch, fetch: job.fetch, maxBytes, signal: budget };
  const commit = await fetchHead(order);
  const head = await commitOf(job.dir, commit);
  if (!head) throw new GitError(`the fetched commit ${commit} cannot be read; nothing was deleted`);
  const base = job.lastCommit ? await commitOf(job.dir, job.lastCommit) : null;
  const diff = base
    ? await diffTrees(job.dir, base.tree, head.tree)
    : await againstStored(job.dir, head.tree, job.known);
  const include = job.settings.include.map((p) => new Bun.Glob(p));
  const exclude = job.settings.exclude.map((p) => new Bun.Glob(p));
  const taken = (path: string) =>
    (!include.length || include.some((g) => g.match(path))) && !exclude.some((g) => g.match(path));
  const scan: GitScan = {
    commit,
    authorDate: head.authorDate,
    files: [],
    // A file no longer taken (an exclude now matching it) goes too.
    gone: [...diff.gone, ...Object.keys(job.known).filter((p) => !taken(p))],
    failures: [],
    base: base ? "commit" : "stored",
  };
  for (const e of diff.changed) {
    if (budget.aborted) throw new GitError("the sync took longer than it may; nothing was deleted");
    if (!taken(e.path)) continue;
    const bytes = e.mode === "120000" || e.mode === "160000" ? null : await readBlobOrNull(job.dir, e.oid);
    const why = refusal(e, bytes, job.settings.maxFileMb);
    if (why) scan.failures.push({ path: e.path, reason: why });
    else scan.files.push({ path: e.path, oid: e.oid, size: bytes!.byteLength });
  }
  emit({ type: "git-synced", jobId, scan });
}
