/**
 * The `metadata_terms` column and its LABEL_LIST index, on real LanceDB tables through
 * VectorStore: written with every row, rewritten on a metadata change with the vectors
 * kept, added and backfilled on tables from before it, indexed by upkeep; and a filter
 * gives the same results with and without the index (and with rows the index has not
 * folded in yet), in every mode.
 */
import { makeArrowTable } from "@lancedb/lancedb";
import * as arrow from "apache-arrow";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Metadata } from "../src/core/metadata";
import { compileMetadataFilter } from "../src/retrieval/filter";
import { openLance, type LanceConnection } from "../src/vectors/connection";
import { encodeChunkMetadata, METADATA_TERMS_COLUMN } from "../src/vectors/meta-index";
import { VectorStore, type ChunkRow } from "../src/vectors/store";
import { metadataTermsField } from "../src/vectors/chunk-arrow";

const D = 16;
const MODES = ["vector", "keyword", "hybrid"] as const;
const DOCS: Record<string, Metadata> = {
  A: { team: "hr", year: 2024, tags: ["policy", "leave"], draft: false },
  B: { team: "hr", year: 2021, tags: ["policy"] },
  C: { team: "eng", year: 2024, tags: ["runbook"], draft: true },
  D: { team: "eng", year: 2019.5 },
  E: {},
};
const CASES: [string, unknown, string[]][] = [
  ["equality", { team: "hr" }, ["A", "B"]],
  ["$ne keeps a missing key", { team: { $ne: "hr" } }, ["C", "D", "E"]],
  ["$in over an array", { tags: { $in: ["leave", "runbook"] } }, ["A", "C"]],
  ["$nin", { tags: { $nin: ["policy"] } }, ["C", "D", "E"]],
  ["number equality", { year: 2024 }, ["A", "C"]],
  ["fractional number", { year: 2019.5 }, ["D"]],
  ["a number is not a string", { year: "2024" }, []],
  ["boolean", { draft: false }, ["A"]],
  ["$exists", { draft: { $exists: true } }, ["A", "C"]],
  ["$exists false", { year: { $exists: false } }, ["E"]],
  ["range beside a term", { team: "hr", year: { $gte: 2022 } }, ["A"]],
  ["$or", { $or: [{ team: "eng" }, { tags: "leave" }] }, ["A", "C", "D"]],
  ["sourceType", { sourceType: "text" }, ["A", "B", "C", "D", "E"]],
];

let dir: string;
let conn: LanceConnection;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ragd-terms-"));
  conn = await openLance(dir);
});
afterAll(() => {
  conn.close();
  rmSync(dir, { recursive: true, force: true });
});

function storeOf(meta: Record<string, Metadata>): VectorStore {
  return new VectorStore(conn, {
    annThreshold: 1e9,
    // Rows outside the indexes stay there until upkeep (table-upkeep.ts, beforeSearch).
    smallTableRows: 0,
    metadataOf: (_c, ids) =>
      new Map(
        ids
          .filter((id) => meta[id.split("-")[0]!])
          .map((id) => [id, encodeChunkMetadata(meta[id.split("-")[0]!]!, { sourceType: "text", externalId: null })]),
      ),
  });
}

/** Three chunks per document `name-<copy>`, every text holding "ledger". */
function rowsOf(doc: string): ChunkRow[] {
  return [0, 1, 2].map((i) => {
    const text = `quarterly ledger ${doc} part ${i}`;
    const vector = Float32Array.from({ length: D }, (_, j) => Math.sin(j * 7 + i + doc.length));
    return { id: `${doc}:${i}`, documentId: doc, chunkIndex: i, text, start: 0, end: text.length, vector };
  });
}

async function write(vectorStore: VectorStore, c: string, docs: string[]): Promise<void> {
  await vectorStore.replaceDocuments(c, 1, [], docs.flatMap(rowsOf), { appendedAreNew: true });
}

/** The documents a filter finds in one mode, by their metadata name (document ids are `<name>-<n>`). */
async function found(vectorStore: VectorStore, c: string, filter: unknown, mode: (typeof MODES)[number]) {
  const where = compileMetadataFilter(filter) ?? undefined;
  const hits = await vectorStore.search(c, 1, {
    mode,
    text: "ledger",
    vector: new Float32Array(D).fill(0.25),
    topK: 100,
    where,
  });
  return [...new Set(hits.map((h) => h.documentId))].sort();
}

/** Every case of CASES, in every mode, finds exactly its documents. */
async function expectEveryCase(vectorStore: VectorStore, c: string) {
  for (const mode of MODES)
    for (const [label, filter, expected] of CASES)
      expect({ case: `${mode} ${label}`, found: named(await found(vectorStore, c, filter, mode)) }).toEqual({
        case: `${mode} ${label}`,
        found: expected,
      });
}

async function openTable(c: string) {
  return conn.openTable(VectorStore.tableName(c, 1));
}

async function termsOf(c: string, docId: string): Promise<string[][]> {
  const t = await openTable(c);
  const rows = await t.query().where(`document_id = '${docId}'`).select([METADATA_TERMS_COLUMN]).toArray();
  t.close();
  return rows.map((r) => [...(r[METADATA_TERMS_COLUMN] as Iterable<string>)].sort());
}

async function hasTermsIndex(c: string): Promise<boolean> {
  const t = await openTable(c);
  const found = (await t.listIndices()).some(
    (i) => i.columns.includes(METADATA_TERMS_COLUMN) && i.indexType === "LabelList",
  );
  t.close();
  return found;
}

async function unindexedTermRows(c: string): Promise<number | undefined> {
  const t = await openTable(c);
  const index = (await t.listIndices()).find((i) => i.columns.includes(METADATA_TERMS_COLUMN));
  const stats = index ? await t.indexStats(index.name) : undefined;
  t.close();
  return stats?.numUnindexedRows;
}

const named = (docs: string[]) => docs.map((d) => d.split("-")[0]!).sort();

describe("the terms column", () => {
  test("is written with each row, holding the metadata's equality and presence terms", async () => {
    const c = crypto.randomUUID();
    const vectorStore = storeOf(DOCS);
    await write(vectorStore, c, ["A-1"]);
    const terms = await termsOf(c, "A-1");
    expect(terms.length).toBe(3);
    expect(terms[0]).toEqual(
      [
        "!draft=false",
        "#year=2024",
        "=sourceType=text",
        "=tags=leave",
        "=tags=policy",
        "=team=hr",
        "?draft",
        "?sourceType",
        "?tags",
        "?team",
        "?year",
      ].sort(),
    );
    vectorStore.close();
  });

  test("a filter gives the same results without the index, with it, and with rows it has not folded in", async () => {
    const c = crypto.randomUUID();
    const vectorStore = storeOf(DOCS);
    await write(vectorStore, c, ["A-1", "B-1", "C-1"]);
    const before: Record<string, string[]> = {};
    for (const mode of MODES)
      for (const [label, filter] of CASES) before[`${mode} ${label}`] = await found(vectorStore, c, filter, mode);
    expect(await hasTermsIndex(c)).toBe(false);
    await vectorStore.upkeep();
    expect(await hasTermsIndex(c)).toBe(true);
    await write(vectorStore, c, ["D-1", "E-1"]); // after the index: these rows are scanned, not indexed
    for (const mode of MODES)
      for (const [label, filter, expected] of CASES) {
        const now = named(await found(vectorStore, c, filter, mode));
        expect({ case: `${mode} ${label}`, found: now }).toEqual({ case: `${mode} ${label}`, found: expected });
        const old = named(before[`${mode} ${label}`]!);
        expect(old).toEqual(expected.filter((d) => ["A", "B", "C"].includes(d)));
      }
    expect(await unindexedTermRows(c)).toBe(6);
    await vectorStore.upkeep(); // folds D and E into the index
    expect(await unindexedTermRows(c)).toBe(0);
    await expectEveryCase(vectorStore, c);
    vectorStore.close();
  }, 60_000);

  test("a metadata change rewrites the terms and keeps the vectors (nothing re-embedded)", async () => {
    const c = crypto.randomUUID();
    const meta: Record<string, Metadata> = { ...DOCS };
    const vectorStore = storeOf(meta);
    await write(vectorStore, c, ["A-1", "B-1"]);
    await vectorStore.upkeep();
    const t = await openTable(c);
    const vectorsBefore = await t.query().where("document_id = 'A-1'").select(["id", "vector"]).toArray();
    meta.A = { team: "legal" };
    await vectorStore.rewriteMetadata(c, "A-1");
    expect((await termsOf(c, "A-1"))[0]).toEqual(["=sourceType=text", "=team=legal", "?sourceType", "?team"]);
    for (const mode of MODES) {
      expect(await found(vectorStore, c, { team: "legal" }, mode)).toEqual(["A-1"]);
      expect(await found(vectorStore, c, { team: "hr" }, mode)).toEqual(["B-1"]);
    }
    const vectorsAfter = await t.query().where("document_id = 'A-1'").select(["id", "vector"]).toArray();
    const byId = (rows: Record<string, unknown>[]) =>
      Object.fromEntries(rows.map((r) => [String(r.id), [...(r.vector as Iterable<number>)]]));
    expect(byId(vectorsAfter)).toEqual(byId(vectorsBefore));
    t.close();
    vectorStore.close();
  }, 60_000);
});

describe("tables written before the terms column", () => {
  for (const dropped of [[METADATA_TERMS_COLUMN], ["metadata", METADATA_TERMS_COLUMN]])
    test(`without ${dropped.join(" and ")}: a filtered search backfills them, upkeep indexes them`, async () => {
      const c = crypto.randomUUID();
      const first = storeOf(DOCS);
      await write(first, c, ["A-1", "B-1", "C-1", "D-1", "E-1"]);
      first.close();
      const t = await openTable(c);
      await t.dropColumns(dropped);
      t.close();

      const vectorStore = storeOf(DOCS);
      await expectEveryCase(vectorStore, c);
      expect((await termsOf(c, "B-1"))[0]).toContain("=team=hr");
      await vectorStore.upkeep();
      expect(await hasTermsIndex(c)).toBe(true);
      // New rows go into the upgraded table with their terms.
      await write(vectorStore, c, ["B-2"]);
      expect(await found(vectorStore, c, { team: "hr" }, "keyword")).toEqual(["A-1", "B-1", "B-2"]);
      vectorStore.close();
    }, 60_000);
});

describe("a backfill cut short", () => {
  test("rows left with null terms are backfilled on the next filtered search", async () => {
    const c = crypto.randomUUID();
    const first = storeOf(DOCS);
    await write(first, c, ["A-1", "B-1", "C-1", "D-1", "E-1"]);
    first.close();
    // As a crash after addColumns leaves it: the column is there, its rows null.
    const t = await openTable(c);
    await t.dropColumns([METADATA_TERMS_COLUMN]);
    await t.addColumns(makeArrowTable([], { schema: new arrow.Schema([metadataTermsField()]) }).schema);
    t.close();
    const vectorStore = storeOf(DOCS);
    await expectEveryCase(vectorStore, c);
    vectorStore.close();
  }, 60_000);
});
