/**
 * A provisioned data directory kept between bench runs (`--dir DIR`): a 1M-chunk table
 * takes 15+ minutes to write and index on the 2-core bench machine. The first run with
 * a fresh DIR provisions and loads it and keeps, beside ragd's own files, the pipeline
 * id and key, the load figures, and every vector with its row id (for exact search);
 * later runs read them back. Before a run the table's serving vector index is made the
 * one ann.ts picks for its size, so a changed setting is measured without reloading
 * (REBUILD_INDEX=1 retrains it even when its name is the same).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import type { Table } from "@lancedb/lancedb";
import { join } from "node:path";
import { annIndexFor, vectorIndexes } from "../src/vectors/ann";
import { openLance } from "../src/vectors/connection";
import { inProcess } from "../src/vectors/index-build";
import { embedBuiltin } from "../src/embed/builtin";
import { type ChunkRow, VectorStore } from "../src/vectors/store";
import { random } from "./support";
import { sentenceOf, topicsFor } from "./vocab";

export interface KeptState {
  pipelineId: string;
  key: string;
  loadMs: number;
  maintainMs: number;
}

/** The value of `--dir` on the command line, if any. */
export function dirArg(): string | undefined {
  const at = process.argv.indexOf("--dir");
  return at > 0 ? process.argv[at + 1] : undefined;
}

const files = (dir: string) => ({
  state: join(dir, "bench-state.json"),
  vectors: join(dir, "bench-vectors.f32"),
  ids: join(dir, "bench-ids.txt"),
  truth: join(dir, "bench-truth.json"),
});

/** Reads a kept corpus into `all` and `ids`; null when `dir` holds none (yet). */
export async function restore(dir: string, all: Float32Array, ids: string[]): Promise<KeptState | null> {
  const f = files(dir);
  if (!existsSync(f.state)) return null;
  const vectors = new Float32Array(await Bun.file(f.vectors).arrayBuffer());
  if (vectors.length !== all.length) throw new Error(`${f.vectors}: ${vectors.length} floats, expected ${all.length}`);
  all.set(vectors);
  readFileSync(f.ids, "utf8")
    .split("\n")
    .forEach((id, i) => {
      if (i < ids.length) ids[i] = id;
    });
  return JSON.parse(readFileSync(f.state, "utf8")) as KeptState;
}

/** Keeps a freshly loaded corpus in `dir` for the next run. */
export async function keep(dir: string, state: KeptState, all: Float32Array, ids: string[]): Promise<void> {
  const f = files(dir);
  await Bun.write(f.vectors, all);
  writeFileSync(f.ids, ids.join("\n"));
  writeFileSync(f.state, JSON.stringify(state));
}

/**
 * Gives the table the index ann.ts picks for `rows` (dropping any other, as the server's
 * upkeep does when it retrains); returns the build time in ms, 0 when it had it already.
 */
export async function ensureServingIndex(dir: string, pipelineId: string, rows: number, dim: number): Promise<number> {
  const conn = await openLance(dir);
  const name = VectorStore.tableName(pipelineId, 1);
  const table = await conn.openTable(name);
  try {
    const want = annIndexFor(rows, dim);
    const existing = vectorIndexes(await table.listIndices());
    // REBUILD_INDEX=1: a setting changed that the index's name does not show (e.g. sub-vectors).
    if (existing.length === 1 && existing[0]!.name === want.name && !process.env.REBUILD_INDEX) return 0;
    for (const old of existing) await table.dropIndex(old.name);
    console.error(`  building ${want.name} (${want.indexType}) for the kept table`);
    const t0 = performance.now();
    await inProcess(table, name, rows);
    return performance.now() - t0;
  } finally {
    table.close();
    conn.close();
  }
}

/**
 * The row ids (`<document>:<chunk>`) of the k rows nearest to `q` by a flat scan of every
 * stored vector, past any index: exact, in LanceDB's native code (a JavaScript scan of
 * 1M × 384 floats took 14 s a query on the loaded bench machine).
 */
export async function flatTopK(table: Table, q: Float32Array, k: number): Promise<Set<string>> {
  const rows = (await table
    .vectorSearch(q)
    .distanceType("cosine")
    .bypassVectorIndex()
    .select(["document_id", "chunk_index", "_distance"])
    .limit(k)
    .toArray()) as { document_id: string; chunk_index: number }[];
  return new Set(rows.map((r) => `${r.document_id}:${r.chunk_index}`));
}

/** The exact answers of `queries`, computed by `exact`, or read from `dir` where an earlier run kept them. */
export async function exactAnswers(
  dir: string | undefined,
  queries: string[],
  exact: (q: string) => Promise<Set<string>>,
): Promise<Set<string>[]> {
  const path = dir && files(dir).truth;
  const known: Record<string, string[]> = path && existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : {};
  const answers: Set<string>[] = [];
  for (const q of queries) answers.push(new Set((known[q] ??= [...(await exact(q))])));
  if (path) writeFileSync(path, JSON.stringify(known));
  return answers;
}

/**
 * Writes `n` topical built-in rows into `collection` in steps of 10,000 (10 chunks a
 * document, a document's chunks from one topic), keeping each vector in `all` and its
 * row id in `ids` for exact search.
 */
export async function fillTopical(
  vectorStore: VectorStore,
  collection: string,
  n: number,
  all: Float32Array,
  ids: string[],
): Promise<void> {
  const rnd = random(1);
  const topics = topicsFor(n);
  const dim = all.length / n;
  for (let from = 0; from < n; from += 10_000) {
    const rows: ChunkRow[] = [];
    for (let i = from; i < Math.min(n, from + 10_000); i++) {
      const d = Math.floor(i / 10);
      const text = sentenceOf(rnd, 20, topics[d % topics.length]!);
      const vector = all.subarray(i * dim, (i + 1) * dim);
      vector.set(embedBuiltin(text));
      ids[i] = `d${d}:${i % 10}`;
      rows.push({ id: ids[i]!, documentId: `d${d}`, chunkIndex: i % 10, text, start: 0, end: text.length, vector });
    }
    await vectorStore.replaceDocuments(collection, 1, [], rows, { appendedAreNew: true });
  }
}
