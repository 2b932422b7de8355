/**
 * Whether a vector search waits for an ANN index being built on its table: 60,000
 * random 384-d rows with an IVF_FLAT index, then a second index of KIND built while a
 * search is asked every 200 ms; prints the searches' p50 and slowest.
 *
 *   ./node_modules/.bin/bun bench/ann-stall.ts [hnsw|ivfflat|ivfpq]
 */
import { Index } from "@lancedb/lancedb";
import { rmSync } from "node:fs";
import { openLance } from "../src/vectors/connection";
import { tempDir } from "../test/support/app";
import { percentile, random } from "./support";

const KIND = (["ivfflat", "ivfpq"] as const).find((k) => k === process.argv[2]) ?? "hnsw";
const N = 60_000;
const D = 384;

const dir = tempDir("ragd-bench-stall-");
const conn = await openLance(dir);
try {
  const rnd = random(1);
  const rows = Array.from({ length: N }, (_, id) => ({ id, vector: Array.from({ length: D }, () => rnd() - 0.5) }));
  const t = await conn.createTable("t", rows);
  await t.createIndex("vector", { config: Index.ivfFlat({ numPartitions: 100, distanceType: "cosine" }), name: "a" });
  const q = Array.from({ length: D }, () => rnd() - 0.5);
  const ask = async () => {
    const t0 = performance.now();
    await t.vectorSearch(q).distanceType("cosine").nprobes(20).limit(10).toArray();
    return performance.now() - t0;
  };
  const before: number[] = [];
  for (let i = 0; i < 20; i++) before.push(await ask());
  const config =
    KIND === "hnsw"
      ? Index.hnswSq({ numPartitions: 1, efConstruction: 150, distanceType: "cosine" })
      : KIND === "ivfpq"
        ? Index.ivfPq({ numPartitions: 245, numSubVectors: D / 16, distanceType: "cosine" })
        : Index.ivfFlat({ numPartitions: 245, distanceType: "cosine" });
  const t0 = performance.now();
  let done = false;
  const build = t.createIndex("vector", { config, name: "b" }).then(() => {
    done = true;
  });
  const during: number[] = [];
  while (!done) {
    during.push(await ask());
    await Bun.sleep(200);
  }
  await build;
  const secs = ((performance.now() - t0) / 1000).toFixed(1);
  console.log(
    `ann-stall: ${KIND} build of ${N.toLocaleString()} × ${D} took ${secs} s; searches before it p50 ${percentile(before, 50).toFixed(1)} ms; ${during.length} during it, p50 ${percentile(during, 50).toFixed(1)} ms, slowest ${Math.max(...during).toFixed(0)} ms`,
  );
  t.close();
} finally {
  conn.close();
  rmSync(dir, { recursive: true, force: true });
}
