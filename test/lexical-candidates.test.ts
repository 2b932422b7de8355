import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MatchQuery, type Table } from "@lancedb/lancedb";
import { sentenceOf, topicsFor } from "../bench/vocab";
import { BUILTIN_DIMENSIONS, embedBuiltin } from "../src/embed/builtin";
import { annIndexFor, vectorIndexes } from "../src/vectors/ann";
import { type AnnProbes, probesForRows } from "../src/vectors/ann-probes";
import { openLance, type LanceConnection } from "../src/vectors/connection";
import { candidateQuery } from "../src/vectors/lexical-candidates";
import { searchTable, type TableSearch } from "../src/vectors/search";
import { VectorStore, type ChunkRow } from "../src/vectors/store";
import { rowsToArrow } from "../src/vectors/chunk-arrow";
import { dot } from "./support/dot";

// A built-in table with the IVF_PQ index of the 1M-row step (ann.ts), 200 partitions on
// 10,000 topical rows (bench/vocab.ts, 100 topics). Partitions of 50 rows hold a topic's
// neighbours better than the 1,000 rows of a partition at 1M, where probing 15% missed
// a third of them (docs/notes/2026-12-06-search-and-ann-indexes.md): probing PROBED partitions (2%) misses
// as many here, and the full-text index must find them.
const ROWS = 10_000;
const PARTITIONS = 200;
const PROBED = 4;
const TOPICS = topicsFor(100_000);

const random = (seed: number) => () =>
  ((seed = Math.imul(seed ^ (seed >>> 15), 2246822507) + 0x9e3779b9) >>> 0) / 2 ** 32;

let dir: string;
let conn: LanceConnection;
let vectorStore: VectorStore;
let table: Table;
let probes: AnnProbes;
const vectors: Float32Array[] = [];
const rnd = random(11);
const queries = Array.from({ length: 40 }, () => {
  const text = sentenceOf(rnd, 3 + Math.floor(rnd() * 4), TOPICS[Math.floor(rnd() * TOPICS.length)]!);
  return { text, vector: embedBuiltin(text) };
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ragd-lexical-"));
  conn = await openLance(dir);
  vectorStore = new VectorStore(conn, { annThreshold: Number.MAX_SAFE_INTEGER });
  const c = crypto.randomUUID();
  const rows: ChunkRow[] = Array.from({ length: ROWS }, (_, i) => {
    const text = sentenceOf(rnd, 20, TOPICS[Math.floor(i / 10) % TOPICS.length]!);
    vectors.push(embedBuiltin(text));
    const documentId = `d${Math.floor(i / 10)}`;
    return {
      id: `${documentId}:${i % 10}`,
      documentId,
      chunkIndex: i % 10,
      text,
      start: 0,
      end: text.length,
      vector: vectors[i]!,
    };
  });
  await vectorStore.replaceDocuments(c, 1, [], rows, { appendedAreNew: true });
  await vectorStore.upkeep();
  table = await conn.openTable(VectorStore.tableName(c, 1));
  const index = annIndexFor(1_000_000, BUILTIN_DIMENSIONS, PARTITIONS);
  await table.createIndex("vector", { config: index.config, name: index.name });
  const [serving] = vectorIndexes(await table.listIndices());
  probes = { ...probesForRows(serving!.trainedRows, serving!.indexType, "builtin"), minimum: PROBED };
}, 120_000);

afterAll(() => {
  table?.close();
  vectorStore.close();
  conn.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The ids of the k rows nearest to q by exact cosine, among the rows `keep` allows. */
function exactTop(q: Float32Array, k: number, keep: (row: number) => boolean = () => true): string[] {
  const scored: { i: number; s: number }[] = [];
  for (const [i, v] of vectors.entries()) if (keep(i)) scored.push({ i, s: dot(v, q) });
  return scored
    .sort((a, b) => b.s - a.s)
    .slice(0, k)
    .map((x) => `d${Math.floor(x.i / 10)}:${x.i % 10}`);
}

/** Recall@10 of the searches of `queries` as `change` shapes them, against exact search over the rows `keep` allows. */
async function recall(
  change: Partial<TableSearch> = {},
  keep?: (row: number) => boolean,
  using: AnnProbes = probes,
): Promise<number> {
  let found = 0;
  for (const q of queries) {
    const truth = new Set(exactTop(q.vector, 10, keep));
    const req: TableSearch = { mode: "vector", text: q.text, vector: q.vector, topK: 10, ...change };
    const hits = await searchTable(table, req, using);
    found += hits.filter((h) => truth.has(`${h.documentId}:${h.chunkIndex}`)).length;
  }
  return found / (queries.length * 10);
}

describe("lexical candidates", () => {
  test("a built-in table on IVF_PQ joins the full-text index's best rows", () => {
    expect(probes.lexical).toBeGreaterThan(0);
    expect(probesForRows(1_000_000, "IvfPq", "model").lexical).toBeUndefined();
    expect(probesForRows(100_000, "IvfFlat", "builtin").lexical).toBeUndefined();
  });

  test("a built-in table on IVF_PQ re-ranks fewer PQ candidates than a model's: its candidates bring the rest", () => {
    const builtin = probesForRows(1_000_000, "IvfPq", "builtin");
    const model = probesForRows(1_000_000, "IvfPq", "model");
    expect(builtin.refine).toBeGreaterThan(1);
    expect(builtin.refine).toBeLessThan(model.refine);
  });

  test("an outgrown IVF_FLAT of built-in vectors joins them until its retrain lands", () => {
    // Past twice its training rows it probes a scaled-down share (ann-probes.ts, staleFlatShare).
    const outgrown = probesForRows(100_000, "IvfFlat", "builtin", 400_000);
    expect(outgrown.minimum).toBeLessThan(probesForRows(100_000, "IvfFlat", "builtin").minimum);
    expect(outgrown.lexical).toBeGreaterThan(0);
    expect(probesForRows(100_000, "IvfFlat", "builtin", 200_000).lexical).toBeUndefined();
    expect(probesForRows(100_000, "IvfFlat", "model", 400_000).lexical).toBeUndefined();
  });

  // Probing PROBED partitions alone found 0.475 here; with the lexical candidates 0.80.
  // At 1M rows (bench/lexical.ts) 15% alone found 0.73, with them 0.96.
  test("recall@10 against exact search rises where the probe share alone misses", async () => {
    const alone = await recall({}, undefined, { ...probes, lexical: undefined });
    const joined = await recall();
    console.log(`recall@10: index alone ${alone}, with lexical candidates ${joined}`);
    expect(alone).toBeLessThan(0.6);
    expect(joined).toBeGreaterThanOrEqual(Math.max(0.75, alone + 0.2));
  }, 90_000);

  test("scores stay exact cosine similarity, best first", async () => {
    for (const q of queries.slice(0, 10)) {
      const hits = await searchTable(table, { mode: "vector", text: q.text, vector: q.vector, topK: 10 }, probes);
      expect(hits.length).toBe(10);
      for (const h of hits) {
        const row = Number(h.documentId.slice(1)) * 10 + h.chunkIndex;
        const exact = dot(vectors[row]!, q.vector);
        expect(h.score).toBeCloseTo(exact, 5);
      }
      expect(hits.map((h) => h.score)).toEqual(hits.map((h) => h.score).sort((a, b) => b - a));
    }
  });

  test("a documentIds filter applies to the lexical candidates too", async () => {
    // Every third document: too many rows for the exact path, so the index path and the candidates run.
    const documentIds = Array.from({ length: ROWS / 30 }, (_, k) => `d${k * 3}`);
    const keep = (row: number) => Math.floor(row / 10) % 3 === 0;
    for (const q of queries.slice(0, 10)) {
      const hits = await searchTable(
        table,
        { mode: "vector", text: q.text, vector: q.vector, topK: 10, documentIds },
        probes,
      );
      for (const h of hits) expect(Number(h.documentId.slice(1)) % 3).toBe(0);
    }
    const alone = await recall({ documentIds }, keep, { ...probes, lexical: undefined });
    const joined = await recall({ documentIds }, keep);
    console.log(`filtered recall@10: index alone ${alone}, with lexical candidates ${joined}`);
    expect(joined).toBeGreaterThanOrEqual(alone + 0.1);
  }, 60_000);

  test("a metadata-free where filter applies to the lexical candidates too", async () => {
    const where = "chunk_index < 5";
    const keep = (row: number) => row % 10 < 5;
    for (const q of queries.slice(0, 10)) {
      const hits = await searchTable(
        table,
        { mode: "vector", text: q.text, vector: q.vector, topK: 10, where },
        probes,
      );
      for (const h of hits) expect(h.chunkIndex).toBeLessThan(5);
    }
    const alone = await recall({ where }, keep, { ...probes, lexical: undefined });
    const joined = await recall({ where }, keep);
    console.log(`filtered recall@10: index alone ${alone}, with lexical candidates ${joined}`);
    expect(joined).toBeGreaterThanOrEqual(alone + 0.1);
  }, 60_000);

  test("a query text without indexable terms falls back to the index alone", async () => {
    const alone = { ...probes, lexical: undefined };
    for (const text of ["", "the of and", "?!* --"]) {
      const q = queries[0]!.vector;
      const hits = await searchTable(table, { mode: "vector", text, vector: q, topK: 10 }, probes);
      const annOnly = await searchTable(table, { mode: "vector", text, vector: q, topK: 10 }, alone);
      expect(hits).toEqual(annOnly);
    }
  });

  test("a failed full-text step is reported, and the index answers alone", async () => {
    // The table as a search sees it, but its full-text question fails (the index's does not).
    const broken = new Proxy(table, {
      get(t, k) {
        if (k === "query")
          return () => {
            throw new Error("full-text index unreadable");
          };
        const v = Reflect.get(t, k);
        return typeof v === "function" ? v.bind(t) : v;
      },
    });
    const q = queries[2]!;
    const req: TableSearch = { mode: "vector", text: q.text, vector: q.vector, topK: 10 };
    const told: unknown[] = [];
    const hits = await searchTable(broken, req, probes, { onLexicalError: (err) => told.push(err) });
    expect(told.map(String)).toEqual(["Error: full-text index unreadable"]);
    expect(hits).toEqual(await searchTable(table, req, { ...probes, lexical: undefined }));
  });

  test("hybrid's vector list gets the lexical candidates as well", async () => {
    const q = queries[1]!;
    const hits = await searchTable(
      table,
      { mode: "hybrid", text: q.text, vector: q.vector, topK: 10, hybridAlpha: 1 },
      probes,
    );
    const truth = exactTop(q.vector, 10);
    expect(hits.filter((h) => truth.includes(`${h.documentId}:${h.chunkIndex}`)).length).toBeGreaterThanOrEqual(8);
  });

  // Last: it adds rows the tests above do not expect.
  test("rows outside the full-text index are not tokenised for the candidates, and the vector search still finds them", async () => {
    const text = "zephyr quokka marmalade lighthouse";
    const tail: ChunkRow[] = Array.from({ length: 300 }, (_, i) => {
      const t = i === 0 ? text : sentenceOf(rnd, 20, TOPICS[i % TOPICS.length]!);
      return {
        id: `tail${i}:0`,
        documentId: `tail${i}`,
        chunkIndex: 0,
        text: t,
        start: 0,
        end: t.length,
        vector: embedBuiltin(t),
      };
    });
    await table.add(rowsToArrow(tail));
    const fts = (await table.listIndices()).find((i) => i.indexType === "FTS");
    expect(fts?.numUnindexedRows).toBe(300);
    // A full-text query of the table as it stands would scan those rows one by one...
    const all = await table.query().fullTextSearch(new MatchQuery("zephyr quokka", "text")).explainPlan();
    expect(all).toContain("FlatMatchQuery");
    // ...the candidates' query does not.
    expect(await candidateQuery(table, new MatchQuery("zephyr quokka", "text"), 300, null).explainPlan()).not.toContain(
      "FlatMatchQuery",
    );
    // The vector search reads the rows outside the ANN index exactly: the new row is found first.
    const hits = await searchTable(table, { mode: "vector", text, vector: embedBuiltin(text), topK: 5 }, probes);
    expect(hits[0]?.documentId).toBe("tail0");
  });
});
