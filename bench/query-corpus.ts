/**
 * The generated corpus and the provisioning shared by bench/query-http.ts and
 * bench/query-concurrency.ts: a pipeline created over HTTP on the compiled binary,
 * then N chunks written straight into its LanceDB table and SQLite rows.
 *
 * Texts are 20 words of a made-up 20,000-word language. `topical` (the default)
 * gives each document one of N/1000 topics of 40 words, from which 60% of its words
 * come, and queries are 3–6 words of one topic: related chunks share words, as real
 * text does. `flat` draws every word from one skewed distribution, so chunks share
 * only common words and the nearest neighbours of a query are near-ties: the hard
 * case for an ANN index. `dense` keeps the topical texts but gives chunks and queries
 * the vectors of a dense embedding model instead of the built-in embedder's hashed
 * ones (dense.ts), served to the binary by a stand-in Ollama (serve's `ollamaUrl`).
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { embedBuiltin } from "../src/embed/builtin";
import { openLance } from "../src/vectors/connection";
import { VectorStore, type ChunkRow } from "../src/vectors/store";
import { startBinary, type RunningBinary } from "../test/support/binary";
import { random } from "./support";
import { sentenceOf, topicsFor } from "./vocab";

export const SIZES = [10_000, 20_000, 100_000, 1_000_000];

export const N = Number(process.argv[2] ?? 10_000);
export const SHAPE = (["flat", "dense"] as const).find((s) => s === process.argv[3]) ?? "topical";
export const DIM = 384;
const CHUNKS_PER_DOC = 10;
const WORDS_PER_CHUNK = 20;
const BATCH_DOCS = 2_000;

if (!SIZES.includes(N)) throw new Error(`usage: bun bench/<bench>.ts ${SIZES.join("|")} [topical|flat]`);

export const TOPICS = topicsFor(N);
/** `n` words; in the topical shape 60% of them from `topic`. */
export const sentence = (rnd: () => number, n: number, topic = TOPICS[Math.floor(rnd() * TOPICS.length)]!) =>
  sentenceOf(rnd, n, topic, SHAPE !== "flat");

export interface Server extends RunningBinary {
  startupMs: number;
  startedAt: number;
}

/** Starts `ragd serve` on a free port; waits (up to 10 min: reconciliation reads every row) for "listening". */
export async function serve(dataDir: string, ollamaUrl?: string): Promise<Server> {
  const startedAt = performance.now();
  const server = await startBinary(
    dataDir,
    {
      RAGD_QUERY_RATE: "1000000",
      RAGD_QUERY_BURST: "1000000",
      ...(ollamaUrl ? { RAGD_OLLAMA_URL: ollamaUrl } : {}),
    },
    undefined,
    600_000,
  );
  return Object.assign(server, { startupMs: performance.now() - startedAt, startedAt });
}

export async function stop(s: Server): Promise<void> {
  s.proc.kill("SIGTERM");
  await s.proc.exited;
}

/** Signs up, creates a pipeline and a key over HTTP; returns the pipeline id and key. */
export async function provision(s: Server, embeddingModel = "builtin"): Promise<{ pipelineId: string; key: string }> {
  const jar: { cookie?: string } = {};
  const post = async (path: string, json: unknown) => {
    const res = await s.http(path, { method: "POST", json, jar });
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  await post("/api/auth/signup", { email: "bench@example.com", password: "benchmark-password" });
  const pipeline = await post("/api/rag/pipelines", { name: "bench", embeddingModel });
  const key = await post(`/api/rag/pipelines/${pipeline.id}/keys`, { name: "bench" });
  return { pipelineId: pipeline.id, key: key.key };
}

/**
 * Writes N chunks into LanceDB and their documents into SQLite; keeps every vector for brute force.
 * Upkeep (indexes) runs once `maintainAt` chunks are written, by default at the end; earlier, the
 * rest only get the tail refreshes the server makes while ingestion runs, as at the end of an
 * ingestion that outgrew the index of its last full upkeep pass.
 */
export async function load(
  dataDir: string,
  pipelineId: string,
  all: Float32Array,
  ids: string[],
  maintainAt = N,
  vectorOf: (text: string, doc: number) => Float32Array = (text) => embedBuiltin(text),
): Promise<{ loadMs: number; maintainMs: number }> {
  const conn = await openLance(dataDir);
  const vectorStore = new VectorStore(conn, { log: (msg, f) => console.error(`  ${msg}`, JSON.stringify(f ?? {})) });
  const db = new Database(join(dataDir, "ragd.db"));
  const insert = db.prepare(
    `INSERT INTO documents (id, collection_id, type, name, content_length, status, chunk_count, progress_done, progress_total, created_at, updated_at, indexed_at)
     VALUES (?, ?, 'text', ?, ?, 'ready', ?, ?, ?, ?, ?, ?)`,
  );
  const insertText = db.prepare("INSERT INTO document_texts (document_id, content) VALUES (?, ?)");
  const rnd = random(1);
  const started = performance.now();
  const docs = N / CHUNKS_PER_DOC;
  for (let from = 0; from < docs; from += BATCH_DOCS) {
    const rows: ChunkRow[] = [];
    const docRows: [string, string][] = [];
    for (let d = from; d < Math.min(docs, from + BATCH_DOCS); d++) {
      const docId = Bun.randomUUIDv7();
      let content = "";
      const topic = TOPICS[d % TOPICS.length]!;
      for (let c = 0; c < CHUNKS_PER_DOC; c++) {
        const text = sentence(rnd, WORDS_PER_CHUNK, topic);
        const start = content.length;
        content += (c ? "\n" : "") + text;
        const i = d * CHUNKS_PER_DOC + c;
        const vector = all.subarray(i * DIM, (i + 1) * DIM);
        vector.set(vectorOf(text, d));
        ids[i] = `${docId}:${c}`;
        rows.push({
          id: `${docId}:${c}`,
          documentId: docId,
          chunkIndex: c,
          text,
          start: c ? start + 1 : 0,
          end: content.length,
          vector,
        });
      }
      docRows.push([docId, content]);
    }
    await vectorStore.replaceDocuments(
      pipelineId,
      1,
      docRows.map(([id]) => id),
      rows,
    );
    const now = new Date().toISOString();
    db.transaction(() => {
      for (const [id, content] of docRows) {
        insert.run(
          id,
          pipelineId,
          `doc ${id.slice(-6)}`,
          content.length,
          CHUNKS_PER_DOC,
          CHUNKS_PER_DOC,
          CHUNKS_PER_DOC,
          now,
          now,
          now,
        );
        insertText.run(id, content);
      }
    })();
    if ((from / BATCH_DOCS) % 10 === 9)
      console.error(`  loaded ${((from + BATCH_DOCS) * CHUNKS_PER_DOC).toLocaleString()} chunks`);
    const written = Math.min(docs, from + BATCH_DOCS) * CHUNKS_PER_DOC;
    if (maintainAt < N && written >= maintainAt && written - BATCH_DOCS * CHUNKS_PER_DOC < maintainAt) {
      await vectorStore.upkeep();
      console.error(`  maintained at ${written.toLocaleString()} chunks`);
    } else if (written > maintainAt) {
      // As the server does while ingestion runs: a long full-text tail is refreshed (optimize(),
      // which also folds the new rows into the vector index), the full pass waits.
      await vectorStore.catchUpTails();
    }
  }
  // The rows carry `text` alone, as a pipeline made before languages wrote them (no `terms`
  // or `grams`): the pipeline says so, or the server analyses its queries for columns the
  // table lacks and its lexical candidates fail (recall@10 0.53 through the binary, 0.93 raw).
  db.run(
    "UPDATE collections SET embedding_dimensions = ?, language = 'legacy', index_language = 'legacy' WHERE id = ?",
    [DIM, pipelineId],
  );
  db.close();
  const loadMs = performance.now() - started;
  const t0 = performance.now();
  if (maintainAt >= N) await vectorStore.upkeep();
  const maintainMs = performance.now() - t0;
  const table = await conn.openTable(VectorStore.tableName(pipelineId, 1));
  const indices = (await table.listIndices()).map((i) => `${i.indexType}(${i.columns.join(",")})`);
  console.error(`  indexes after maintain: ${indices.join(", ")}; rows ${await table.countRows()}`);
  table.close();
  vectorStore.close();
  conn.close();
  return { loadMs, maintainMs };
}

/** Row ids of the k stored vectors with the highest dot product (vectors are unit length). */
export function exactTopK(all: Float32Array, ids: string[], q: Float32Array, k: number): Set<string> {
  const best: { i: number; s: number }[] = [];
  let floor = -Infinity;
  for (let i = 0, off = 0; off < all.length; i++, off += DIM) {
    let s = 0;
    for (let j = 0; j < DIM; j++) s += all[off + j]! * q[j]!;
    if (best.length < k || s > floor) {
      best.push({ i, s });
      best.sort((a, b) => b.s - a.s);
      if (best.length > k) best.pop();
      floor = best[best.length - 1]!.s;
    }
  }
  return new Set(best.map((b) => ids[b.i]!));
}
