/**
 * Vector probe settings on a kept bench/ten-million.ts table, in process: for each setting
 * (IVF partitions probed, re-rank factor), the p50 and p95 of the search and its recall@10
 * against LanceDB's flat scan of every stored vector (kept in DIR/ten-million-truth.json,
 * since one flat scan of 10M × 384 floats takes tens of seconds):
 *
 *   ./node_modules/.bin/bun bench/ten-million-probes.ts --dir DIR [--chunks 10000000]
 *     [--queries 30] [--probes 126,252,378] [--refine 30,50,100] [--index-cache-mb 3072] [--cold]
 *
 * The queries are the bench's own (the same seed). Every query first runs once probing the
 * most partitions of any setting, so the index's partitions are in LanceDB's cache; then
 * each setting runs every query once (with `--cold`, root only, right after the kernel's
 * page cache is emptied: the rows it re-ranks are read from the disk, as on a table larger
 * than the memory), then `--rounds` times more (warm).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { lanceSession, openLance } from "../src/vectors/connection";
import { VectorStore } from "../src/vectors/store";
import { flatTopK } from "./kept-corpus";
import { largeCorpus } from "./large-corpus";
import { percentile, random } from "./support";

const { values: args } = parseArgs({
  options: {
    dir: { type: "string" },
    chunks: { type: "string", default: "10000000" },
    queries: { type: "string", default: "30" },
    rounds: { type: "string", default: "3" },
    probes: { type: "string", default: "126,252,378" },
    refine: { type: "string", default: "30,50,100" },
    "index-cache-mb": { type: "string", default: "3072" },
    cold: { type: "boolean", default: false },
  },
});
if (!args.dir) throw new Error("--dir DIR: a directory bench/ten-million.ts kept");
const dir = args.dir;
const corpus = largeCorpus(Number(args.chunks));
const { pipelineId } = JSON.parse(readFileSync(join(dir, "bench-state.json"), "utf8")) as { pipelineId: string };
const conn = await openLance(dir, lanceSession(Number(args["index-cache-mb"])));
const table = await conn.openTable(VectorStore.tableName(pipelineId, 1));
const rnd = random(7);
const queries = Array.from({ length: Number(args.queries) }, () => corpus.query(rnd));
const vectors = queries.map((q) => Float32Array.from(corpus.vector(q)));

const truthPath = join(dir, "ten-million-truth.json");
const known: Record<string, string[]> = existsSync(truthPath) ? JSON.parse(readFileSync(truthPath, "utf8")) : {};
for (const [i, q] of queries.entries()) {
  if (known[q]) continue;
  const t0 = performance.now();
  known[q] = [...(await flatTopK(table, vectors[i]!, 10))];
  console.error(`exact answer ${i + 1}/${queries.length} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  writeFileSync(truthPath, JSON.stringify(known));
}

async function search(v: Float32Array, probes: number, refine: number): Promise<string[]> {
  const rows = (await table
    .vectorSearch(v)
    .distanceType("cosine")
    .select(["document_id", "chunk_index", "_distance"])
    .nprobes(probes)
    .refineFactor(refine)
    .limit(10)
    .toArray()) as { document_id: string; chunk_index: number }[];
  return rows.map((r) => `${r.document_id}:${r.chunk_index}`);
}

/** Empties the kernel's page cache (root only): the next reads of the table's files come from the disk. */
function dropPageCache(): boolean {
  try {
    Bun.spawnSync(["sync"]);
    writeFileSync("/proc/sys/vm/drop_caches", "1");
    return true;
  } catch {
    return false;
  }
}

const settings = args.probes!.split(",").flatMap((p) => args.refine!.split(",").map((r) => [Number(p), Number(r)]));
// The index's partitions this run reads are in LanceDB's cache before any setting is timed.
for (const v of vectors) await search(v, Math.max(...settings.map(([p]) => p!)), 1);
const cold = args.cold === true && dropPageCache();
console.log(
  `${queries.length} queries; ${cold ? "the first pass after emptying the page cache (cold), then " : ""}` +
    `${args.rounds} rounds (warm); ms in process, recall@10 against flat`,
);
console.log("| probes | refine | cold p50 | warm p50 | warm p95 | recall@10 |\n|---:|---:|---:|---:|---:|---:|");
for (const [probes, refine] of settings) {
  const pass = async () => {
    const times: number[] = [];
    let found = 0;
    for (const [i, v] of vectors.entries()) {
      const t0 = performance.now();
      const ids = await search(v, probes!, refine!);
      times.push(performance.now() - t0);
      found += ids.filter((id) => known[queries[i]!]!.includes(id)).length;
    }
    return { times, recall: found / (queries.length * 10) };
  };
  if (cold) dropPageCache();
  const first = await pass();
  const warm: number[] = [];
  for (let r = 0; r < Number(args.rounds); r++) warm.push(...(await pass()).times);
  const cells = [cold ? percentile(first.times, 50) : Number.NaN, percentile(warm, 50), percentile(warm, 95)];
  const shown = cells.map((x) => (Number.isNaN(x) ? "" : x.toFixed(1)));
  console.log(`| ${probes} | ${refine} | ${shown.join(" | ")} | ${first.recall.toFixed(3)} |`);
}
table.close();
conn.close();
