/**
 * `ragd ingest DIR`: keeps a pipeline in step with a folder through the documents API
 * (docs/API.md, Documents API), with a key that has the ingest scope. Each file is a
 * document whose external id is `--prefix` + its path relative to DIR; a file whose SHA-256
 * is what the server last indexed is not sent; `--delete` removes the documents under the
 * prefix whose file is gone. Exit codes: 0 all done, 1 some files failed, 2 nothing could be
 * done (bad arguments, the server unreachable, the key refused).
 */
import { parseArgs } from "node:util";
import { ConfigError, url } from "../config-values";
import { fileMetadata, hashFile, type LocalFile, type Walk, walkFolder } from "../tools/folder-walk";
import { Remote, type RemoteDocument, RemoteError } from "./ingest-remote";
import { Progress } from "./progress";

export interface IngestArgs {
  dir: string;
  url: string;
  key: string;
  prefix: string;
  delete: boolean;
  concurrency: number;
  include: Bun.Glob[];
  exclude: Bun.Glob[];
}

export interface Tally {
  created: number;
  replaced: number;
  unchanged: number;
  deleted: number;
  failed: { path: string; message: string }[];
}

/** The arguments after `ragd ingest`, with RAGD_URL and RAGD_API_KEY as the defaults of --url and --key. */
export function ingestArgs(argv: string[], env: Record<string, string | undefined> = process.env): IngestArgs {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: "string" },
      key: { type: "string" },
      prefix: { type: "string", default: "" },
      delete: { type: "boolean", default: false },
      concurrency: { type: "string", default: "4" },
      include: { type: "string", multiple: true, default: [] },
      exclude: { type: "string", multiple: true, default: [] },
    },
  });
  if (positionals.length !== 1) throw new ConfigError("ragd ingest takes one folder: ragd ingest DIR --key rag_…");
  const key = values.key ?? env.RAGD_API_KEY;
  if (!key) throw new ConfigError("ragd ingest needs a key with the ingest scope: --key rag_… or RAGD_API_KEY");
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 16)
    throw new ConfigError("--concurrency must be a whole number from 1 to 16");
  const rawUrl = values.url ?? env.RAGD_URL ?? "http://127.0.0.1:8484";
  return {
    dir: positionals[0]!,
    url: url(rawUrl, values.url !== undefined ? "--url" : "RAGD_URL").replace(/\/+$/, ""),
    key,
    prefix: values.prefix,
    delete: values.delete,
    concurrency,
    include: values.include.map((g) => new Bun.Glob(g)),
    exclude: values.exclude.map((g) => new Bun.Glob(g)),
  };
}

/** Runs the sync and prints its summary; the exit code. */
export async function ingestCommand(argv: string[]): Promise<number> {
  const args = ingestArgs(argv);
  const remote = new Remote(args.url, args.key);
  let walk: Walk;
  let known: Map<string, RemoteDocument>;
  try {
    walk = await walkFolder(args.dir, { include: args.include, exclude: args.exclude });
    known = await remote.documents();
  } catch (err) {
    console.error(`ragd ingest: ${(err as Error).message}`);
    return 2;
  }
  for (const s of walk.skipped) console.error(`ragd ingest: skipped ${s.path}: ${s.reason}`);
  const progress = new Progress(process.stderr, walk.files.length, "files");
  let tally: Tally;
  try {
    tally = await syncFiles(args, remote, walk.files, known, () => progress.step());
    for (const u of walk.unlisted)
      tally.failed.push({
        path: `${u.path}/`,
        message: `cannot list this folder (${u.reason}); its documents are kept`,
      });
    if (args.delete) await deleteGone(args, remote, walk, known, tally);
  } catch (err) {
    console.error(`ragd ingest: ${(err as Error).message}`);
    return 2;
  } finally {
    progress.end();
  }
  for (const f of tally.failed) console.error(`ragd ingest: failed ${f.path}: ${f.message}`);
  console.log(summary(walk.files.length, tally, args.delete));
  return tally.failed.length ? 1 : 0;
}

/** Sends each file whose hash differs from the indexed one, `concurrency` at a time. */
export async function syncFiles(
  args: Pick<IngestArgs, "prefix" | "concurrency">,
  remote: Remote,
  files: LocalFile[],
  known: Map<string, RemoteDocument>,
  onFile: () => void,
): Promise<Tally> {
  const tally: Tally = { created: 0, replaced: 0, unchanged: 0, deleted: 0, failed: [] };
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const file = files[next++]!;
      try {
        const id = args.prefix + file.path;
        const hash = await hashFile(file.absolute, file.size);
        const indexed = known.get(id);
        if (indexed?.contentHash === hash && indexed.status !== "failed") tally.unchanged++;
        else {
          const status = await remote.put(id, file, fileMetadata(file));
          if (status === "created") tally.created++;
          else if (status === "replaced") tally.replaced++;
          else tally.unchanged++;
        }
      } catch (err) {
        // A refused key, a server gone or one busy beyond waiting fails every file alike: stop at the first.
        if (err instanceof RemoteError && (err.status === 0 || err.status === 401 || err.status === 403 || err.busy))
          throw err;
        tally.failed.push({ path: file.path, message: (err as Error).message });
      }
      onFile();
    }
  };
  await Promise.all(Array.from({ length: Math.min(args.concurrency, files.length) }, worker));
  return tally;
}

/**
 * Deletes the documents under the prefix that no file of the folder names any more; those
 * under a folder that could not be listed are unknown, not gone, and stay.
 */
async function deleteGone(
  args: IngestArgs,
  remote: Remote,
  walk: Walk,
  known: Map<string, RemoteDocument>,
  tally: Tally,
): Promise<void> {
  const present = new Set(walk.files.map((f) => args.prefix + f.path));
  const unknown = walk.unlisted.map((u) => `${args.prefix}${u.path}/`);
  for (const id of known.keys()) {
    if (!id.startsWith(args.prefix) || present.has(id) || unknown.some((u) => id.startsWith(u))) continue;
    try {
      await remote.remove(id);
      tally.deleted++;
    } catch (err) {
      if (!(err instanceof RemoteError && err.status === 404))
        tally.failed.push({ path: id, message: (err as Error).message });
    }
  }
}

export function summary(files: number, t: Tally, deleting: boolean): string {
  const parts = [`${t.created} created`, `${t.replaced} replaced`, `${t.unchanged} unchanged`];
  if (deleting) parts.push(`${t.deleted} deleted`);
  parts.push(`${t.failed.length} failed`);
  return `ragd ingest: ${files} files: ${parts.join(", ")}`;
}
