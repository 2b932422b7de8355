/**
 * Source metadata and filters: a written corpus of labelled sources searched with
 * filter.metadata in every mode (a table of cases: every operator, arrays, missing
 * keys, $and/$or nesting, hostile values), refusals naming the field, the filter
 * applied before ranking, and PATCH changing metadata without re-embedding.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeApp, type TestApp } from "./support/app";
import { startFakeOllama, type FakeOllama } from "./support/fake-ollama";
import { Client } from "./support/ingest";

const MODES = ["vector", "keyword", "hybrid"] as const;
const HOSTILE = "O'Brien'); DROP TABLE x; --";
const QUOTED = "it's \"quoted\" \\ back\\\\slash \\' end";

/** Every text holds "quarterly ledger", so a keyword search finds them all. */
const CORPUS: { name: string; metadata?: Record<string, unknown>; externalId?: string }[] = [
  { name: "A", metadata: { team: "hr", year: 2024, tags: ["policy", "leave"], lang: "en", draft: false } },
  { name: "B", metadata: { team: "hr", year: 2021, tags: ["policy"], lang: "de" } },
  { name: "C", metadata: { team: "eng", year: 2024, tags: ["runbook"], draft: true } },
  { name: "D", metadata: { team: "eng", year: 2019, lang: "en" } },
  { name: "E", metadata: { team: "fin", tags: ["policy", "budget"], note: QUOTED } },
  { name: "F", externalId: "ext-F" },
  { name: "G", metadata: { team: HOSTILE, year: 2030.5, "dotted.key-x": "yes" } },
];
const ALL = CORPUS.map((d) => d.name);

const CASES: [string, unknown, string[]][] = [
  ["literal equality", { team: "hr" }, ["A", "B"]],
  ["$eq", { team: { $eq: "eng" } }, ["C", "D"]],
  ["$ne keeps sources without the key", { team: { $ne: "hr" } }, ["C", "D", "E", "F", "G"]],
  ["$in", { team: { $in: ["hr", "fin"] } }, ["A", "B", "E"]],
  ["$nin", { team: { $nin: ["hr", "fin"] } }, ["C", "D", "F", "G"]],
  ["$gt number", { year: { $gt: 2021 } }, ["A", "C", "G"]],
  ["$gte number", { year: { $gte: 2021 } }, ["A", "B", "C", "G"]],
  ["$lt number", { year: { $lt: 2021 } }, ["D"]],
  ["$lte number", { year: { $lte: 2021 } }, ["B", "D"]],
  ["number equality", { year: 2024 }, ["A", "C"]],
  ["an exponent literal", { year: { $lt: 1e21 } }, ["A", "B", "C", "D", "G"]],
  ["a tiny negative literal", { year: { $gt: -1e-7 } }, ["A", "B", "C", "D", "G"]],
  ["fractional number", { year: 2030.5 }, ["G"]],
  ["a number never equals a string", { year: "2024" }, []],
  ["two operators on one key", { year: { $gt: 2020, $lt: 2030 } }, ["A", "B", "C"]],
  ["array: any element", { tags: "policy" }, ["A", "B", "E"]],
  ["array $in", { tags: { $in: ["runbook", "budget"] } }, ["C", "E"]],
  ["array $nin", { tags: { $nin: ["policy"] } }, ["C", "D", "F", "G"]],
  ["array $ne", { tags: { $ne: "leave" } }, ["B", "C", "D", "E", "F", "G"]],
  ["$exists true", { tags: { $exists: true } }, ["A", "B", "C", "E"]],
  ["$exists false", { year: { $exists: false } }, ["E", "F"]],
  ["boolean true", { draft: true }, ["C"]],
  ["boolean false", { draft: { $eq: false } }, ["A"]],
  ["string range $gt", { lang: { $gt: "d" } }, ["A", "B", "D"]],
  ["string range $lt", { lang: { $lt: "e" } }, ["B"]],
  ["$or", { $or: [{ team: "eng" }, { tags: "budget" }] }, ["C", "D", "E"]],
  ["$and with nested $or", { $and: [{ team: "hr" }, { $or: [{ year: { $lt: 2022 } }, { draft: true }] }] }, ["B"]],
  ["keys AND-ed", { team: "hr", year: { $gte: 2022 } }, ["A"]],
  ["$or of $and", { $or: [{ $and: [{ team: "eng" }, { year: 2019 }] }, { lang: "de" }] }, ["B", "D"]],
  ["missing key", { nothing: "x" }, []],
  ["a value of 2,000 characters", { team: "h".repeat(2000) }, []],
  ["externalId", { externalId: "ext-F" }, ["F"]],
  ["externalId $exists", { externalId: { $exists: true } }, ["F"]],
  ["sourceType", { sourceType: "text" }, ALL],
  ["sourceType $ne", { sourceType: { $ne: "text" } }, []],
  ["quotes and backslashes are data", { note: QUOTED }, ["E"]],
  ["SQL in a value is data", { team: HOSTILE }, ["G"]],
  ["SQL in $in is data", { team: { $in: [HOSTILE, "x' OR '1'='1"] } }, ["G"]],
  ["a quote alone matches nothing", { team: "' OR true OR '" }, []],
  ["dots and dashes in keys", { "dotted.key-x": "yes" }, ["G"]],
  ["empty filter", {}, ALL],
];

const BAD: [string, unknown, string][] = [
  ["unknown operator", { team: { $like: "h%" } }, "filter.metadata.team.$like"],
  ["unknown top-level operator", { $not: { team: "hr" } }, "filter.metadata.$not"],
  ["$gt with a string array", { tags: { $gt: ["a"] } }, "filter.metadata.tags.$gt"],
  ["$gt with a boolean", { year: { $gt: true } }, "filter.metadata.year.$gt"],
  ["empty $in", { team: { $in: [] } }, "filter.metadata.team.$in"],
  ["$in not an array", { team: { $in: "hr" } }, "filter.metadata.team.$in"],
  ["$in holding an object", { team: { $in: [{ a: 1 }] } }, "filter.metadata.team.$in.0"],
  ["empty $or", { $or: [] }, "filter.metadata.$or"],
  ["$and of a non-object", { $and: ["x"] }, "filter.metadata.$and.0"],
  ["an array literal", { tags: ["a", "b"] }, "filter.metadata.tags"],
  ["null", { team: null }, "filter.metadata.team"],
  ["empty operator object", { team: {} }, "filter.metadata.team"],
  ["$exists not boolean", { year: { $exists: "yes" } }, "filter.metadata.year.$exists"],
  ["externalId not a string", { externalId: 5 }, "filter.metadata.externalId"],
  ["sourceType range with a number", { sourceType: { $gt: 1 } }, "filter.metadata.sourceType.$gt"],
  ["sourceId is not a metadata key", { sourceId: "x" }, "filter.metadata.sourceId"],
  ["reserved key", { chunkIndex: 1 }, "filter.metadata.chunkIndex"],
  ["bad key", { "bad key!": 1 }, "filter.metadata.bad key!"],
  [
    "nesting too deep",
    { $or: [{ $or: [{ $or: [{ $or: [{ $or: [{ $or: [{ team: "hr" }] }] }] }] }] }] },
    "filter.metadata.$or.0.$or.0.$or.0.$or.0.$or.0.$or.0",
  ],
  ["NUL in a value", { team: "a\u0000b" }, "filter.metadata.team"],
  // No stored value is longer (a source's metadata strings hold at most 2,000 characters).
  ["a value of 2,001 characters", { team: "h".repeat(2001) }, "filter.metadata.team"],
  ["an $in value of 2,001 characters", { team: { $in: ["hr", "h".repeat(2001)] } }, "filter.metadata.team.$in.1"],
  ["a range bound of 2,001 characters", { lang: { $gt: "e".repeat(2001) } }, "filter.metadata.lang.$gt"],
  ["an empty array", [], "filter.metadata"],
  ["an array of conditions", [{ team: "hr" }], "filter.metadata"],
  ["a string", "team=hr", "filter.metadata"],
  ["a number", 5, "filter.metadata"],
  ["null itself", null, "filter.metadata"],
];

let fake: FakeOllama;
let t: TestApp;
let c: Client;
let pipeline: string;
let key: string;

beforeAll(async () => {
  fake = await startFakeOllama({ models: { "all-minilm": 384 } });
  t = await makeApp({ ollamaUrl: fake.url, workers: 2, queryRate: 100_000, queryBurst: 100_000 });
  c = await Client.create(t);
  pipeline = await c.pipeline({ name: "Labelled", chunkSize: 2000, chunkOverlap: 0 });
  key = await c.key(pipeline);
  for (const d of CORPUS) {
    const r = await c.addSource(pipeline, {
      type: "text",
      name: d.name,
      content: `Source ${d.name}: the quarterly ledger of section ${d.name.toLowerCase()}${d.name.toLowerCase()}.`,
      ...(d.metadata ? { metadata: d.metadata } : {}),
      ...(d.externalId ? { externalId: d.externalId } : {}),
    });
    expect(r.status).toBe(201);
  }
  const all = await c.allSettled(pipeline);
  expect(all.every((s) => s.status === "ready")).toBe(true);
}, 60_000);

afterAll(async () => {
  await t?.close();
  await fake?.stop();
});

async function names(filter: unknown, mode: string, topK = 20): Promise<string[]> {
  const r = await c.query(key, { query: "quarterly ledger", mode, topK, filter: { metadata: filter } });
  if (r.status !== 200) throw new Error(`${r.status} ${r.text}`);
  return r.body.results.map((h: { metadata: { sourceName: string } }) => h.metadata.sourceName).sort();
}

describe("filter.metadata semantics", () => {
  for (const mode of MODES)
    test.each(CASES)(`${mode}: %s`, async (_label, filter, expected) => {
      expect(await names(filter, mode)).toEqual([...expected].sort());
    });
});

describe("bad filters are 400 naming the field", () => {
  test.each(BAD)("%s", async (_label, filter, field) => {
    const r = await c.query(key, { query: "quarterly ledger", mode: "keyword", filter: { metadata: filter } });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("invalid_request");
    expect(r.body.error.message.startsWith(`${field}:`)).toBe(true);
    if (field === "filter.metadata") expect(r.body.error.message).toStartWith("filter.metadata: must be an object");
  });

  test("a filter whose keys and values hold more than 100,000 characters in all", async () => {
    // 1,000 values of 200 characters each: every string is short, the whole is 200,000.
    const $or = Array.from({ length: 10 }, (_, i) => ({
      team: { $in: Array.from({ length: 100 }, (_, j) => `${i}.${j}.`.padEnd(200, "h")) },
    }));
    const r = await c.query(key, { query: "quarterly ledger", mode: "keyword", filter: { metadata: { $or } } });
    expect(r.status).toBe(400);
    expect(r.body.error.details).toEqual([
      { field: "filter.metadata", message: "must hold at most 100000 characters of keys and values" },
    ]);
    const half = $or.slice(0, 4);
    const fits = await c.query(key, {
      query: "quarterly ledger",
      mode: "keyword",
      filter: { metadata: { $or: half } },
    });
    expect(fits.status).toBe(200);
  });

  test("filter.metadata that is not an object", async () => {
    const r = await c.query(key, { query: "quarterly", filter: { metadata: "team = 'hr'" } });
    expect(r.status).toBe(400);
    expect(r.text).toContain("filter.metadata");
  });
});

describe("results carry the source's metadata flat", () => {
  test("metadata keys beside the reserved ones, and externalId", async () => {
    const r = await c.query(key, { query: "quarterly ledger", mode: "keyword", topK: 20 });
    const byName = new Map(
      r.body.results.map((h: { metadata: { sourceName: string } }) => [h.metadata.sourceName, h.metadata]),
    );
    expect(byName.get("A")).toMatchObject({ team: "hr", year: 2024, tags: ["policy", "leave"], sourceType: "text" });
    expect(byName.get("F")).toMatchObject({ externalId: "ext-F", sourceName: "F" });
    expect(byName.get("A")).not.toHaveProperty("externalId");
  });
});
