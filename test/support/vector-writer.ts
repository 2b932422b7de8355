/**
 * One writer process of the multi-process vector tests: opens ragd's VectorStore where
 * the JSON argument says (a data directory or an object store), waits for the common
 * start time so that every process writes at once, writes its documents to each of
 * its collections (10 chunks
 * each; every `replayEvery`-th one a second time, as a retried task does) and prints
 * `{ "failed": n, "errors": [...] }` on stdout.
 * Usage: bun test/support/vector-writer.ts '<json of WriterJob>'
 */
import type { ObjectStorage } from "../../src/config-storage";
import { openLance } from "../../src/vectors/connection";
import { type ChunkRow, VectorStore } from "../../src/vectors/store";

export interface WriterJob {
  where: string | ObjectStorage;
  /** Each document is written to every one of them, at once. */
  collectionIds: string[];
  /** Prefix of this writer's document ids. */
  name: string;
  docs: number;
  /** 0: no replays. */
  replayEvery: number;
  /** Chunks per document (default CHUNKS_PER_DOC): more make each first write, and its race, longer. */
  chunks?: number;
  /** Epoch milliseconds at which to begin. */
  startAt: number;
}

export const CHUNKS_PER_DOC = 10;
const DIM = 16;

/** A deterministic vector per seed. */
export function vectorOf(seed: number): Float32Array {
  return Float32Array.from({ length: DIM }, (_, i) => {
    const x = Math.sin(seed * 12.9898 + i * 78.233) * 43758.5453;
    return x - Math.floor(x);
  });
}

export function rowsOf(doc: string, seed: number, chunks = CHUNKS_PER_DOC): ChunkRow[] {
  return Array.from({ length: chunks }, (_, i) => ({
    id: `${doc}:${i}`,
    documentId: doc,
    chunkIndex: i,
    text: `${doc} chunk ${i} ${i % 2 ? "glaciers" : "volcanoes"}`,
    start: i * 10,
    end: i * 10 + 9,
    vector: vectorOf(seed * 100 + i),
  }));
}

async function run(job: WriterJob): Promise<{ failed: number; errors: string[] }> {
  const conn = await openLance(job.where);
  const store = new VectorStore(conn);
  const errors: string[] = [];
  const write = (doc: string, d: number) =>
    Promise.all(
      job.collectionIds.map((id) =>
        store.replaceDocuments(id, 1, [doc], rowsOf(doc, d, job.chunks)).catch((e) => errors.push(String(e))),
      ),
    );
  await Bun.sleep(Math.max(0, job.startAt - Date.now()));
  for (let d = 0; d < job.docs; d++) {
    const doc = `${job.name}-d${d}`;
    await write(doc, d);
    if (job.replayEvery > 0 && d % job.replayEvery === 0) await write(doc, d);
  }
  store.close();
  conn.close();
  return { failed: errors.length, errors };
}

/** Runs one writer process per job, all at once; their results, in job order. */
export async function runWriters(jobs: Omit<WriterJob, "startAt">[], startInMs = 3_000) {
  const startAt = Date.now() + startInMs;
  return Promise.all(
    jobs.map(async (job) => {
      const p = Bun.spawn([process.execPath, import.meta.path, JSON.stringify({ ...job, startAt })], {
        stdout: "pipe",
        stderr: "pipe",
      });
      const [out, err, code] = await Promise.all([
        new Response(p.stdout).text(),
        new Response(p.stderr).text(),
        p.exited,
      ]);
      if (code !== 0) throw new Error(`writer ${job.name} exited with ${code}: ${err.slice(-2000)}`);
      return JSON.parse(out.trim().split("\n").at(-1)!) as { failed: number; errors: string[] };
    }),
  );
}

if (import.meta.main) console.log(JSON.stringify(await run(JSON.parse(process.argv[2]!) as WriterJob)));
