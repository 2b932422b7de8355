/**
 * One writer process of the multi-process vector tests: opens ragd's VectorStore where
 * the JSON argument says (a data directory or an object store), says `ready` on stdout
 * and waits for its stdin to end, the go that runWriters gives every process at once
 * when all are ready, writes its documents to each of its collections (10 chunks
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
}

/** The line a writer prints once its store is open, before it waits for the go. */
const READY = "ready";

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
  const vectorStore = new VectorStore(conn);
  const errors: string[] = [];
  const write = (doc: string, d: number) =>
    Promise.all(
      job.collectionIds.map((id) =>
        vectorStore.replaceDocuments(id, 1, [doc], rowsOf(doc, d, job.chunks)).catch((e) => errors.push(String(e))),
      ),
    );
  console.log(READY);
  await Bun.stdin.text();
  for (let d = 0; d < job.docs; d++) {
    const doc = `${job.name}-d${d}`;
    await write(doc, d);
    if (job.replayEvery > 0 && d % job.replayEvery === 0) await write(doc, d);
  }
  vectorStore.close();
  conn.close();
  return { failed: errors.length, errors };
}

/**
 * Runs one writer process per job and, once every one says it is ready, lets them all
 * write at once (ends their stdin); their results, in job order.
 */
export async function runWriters(jobs: WriterJob[]) {
  const writers = jobs.map((job) => {
    const p = Bun.spawn([process.execPath, import.meta.path, JSON.stringify(job)], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    const out = lines(p.stdout);
    return { job, p, out, err: new Response(p.stderr).text() };
  });
  // Every writer is ready, or has ended: the go for all at once.
  await Promise.all(writers.map((w) => w.out.ready));
  for (const w of writers) w.p.stdin.end();
  return Promise.all(
    writers.map(async (w) => {
      const [text, code] = await Promise.all([w.out.all, w.p.exited]);
      if (code !== 0) throw new Error(`writer ${w.job.name} exited with ${code}: ${(await w.err).slice(-2000)}`);
      return JSON.parse(text.trim().split("\n").at(-1)!) as { failed: number; errors: string[] };
    }),
  );
}

/** A writer's stdout: `ready` resolves at its ready line (or its end), `all` to the whole text. */
function lines(stream: ReadableStream<Uint8Array>): { ready: Promise<void>; all: Promise<string> } {
  let said: () => void = () => {};
  const ready = new Promise<void>((resolve) => (said = resolve));
  const all = (async () => {
    let text = "";
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      text += decoder.decode(chunk, { stream: true });
      if (text.split("\n").includes(READY)) said();
    }
    said();
    return text;
  })();
  return { ready, all };
}

if (import.meta.main) console.log(JSON.stringify(await run(JSON.parse(process.argv[2]!) as WriterJob)));
