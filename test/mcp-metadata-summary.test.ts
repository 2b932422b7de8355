/**
 * The bounds of the metadata summary behind MCP's `search` description and
 * `list_metadata` (docs/API.md, MCP): keys, values and value lengths are capped,
 * and what is left out is counted. Sources are made through the session API on
 * a real data dir; the summary is read from its SQLite file.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { pipelineMetadata, summarize } from "../src/features/mcp/metadata-summary";
import { makeApp, type TestApp } from "./support/app";
import { type FakeOllama, startFakeOllama } from "./support/fake-ollama";
import { Client } from "./support/ingest";

let fake: FakeOllama;
let t: TestApp;
let c: Client;
let pipeline: string;

const LONG = `${"Quarterly review of ".repeat(20)}end`;
const keys = (prefix: string, n: number) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${String(i).padStart(2, "0")}`, "v"]));

beforeAll(async () => {
  fake = await startFakeOllama({ models: { "all-minilm": 384 } });
  t = await makeApp({ ollamaUrl: fake.url, workers: 1 });
  c = await Client.create(t);
  pipeline = await c.pipeline({ name: "Wide", embeddingModel: "ollama/all-minilm" });
  const sources = [
    // 64 keys each (the most a source may have): 128 in all.
    { a_long: LONG, a_tags: Array.from({ length: 60 }, (_, i) => `tag${i}`), ...keys("k", 62) },
    { a_shade: Array.from({ length: 12 }, (_, i) => `shade${i}`), ...keys("m", 63) },
  ];
  for (const [i, metadata] of sources.entries()) {
    const r = await c.addSource(pipeline, { type: "text", name: `s${i}`, content: "some words", metadata });
    if (r.status !== 201) throw new Error(`source: ${r.text}`);
  }
});

afterAll(async () => {
  await t?.close();
  await fake?.stop();
});

describe("metadata summary bounds", () => {
  test("list_metadata's summary holds at most 100 keys and counts them all", async () => {
    const s = await summarize(t.services.db.reader, pipeline);
    expect(s.totalKeys).toBe(128);
    expect(s.keys).toHaveLength(100);
    const long = s.keys.find((k) => k.key === "a_long")!;
    expect(long.values![0]!.value).toBe(`${LONG.slice(0, 199)}…`);
    const tags = s.keys.find((k) => k.key === "a_tags")!;
    expect(tags).toMatchObject({ types: ["string[]"], sources: 1, distinctValues: 60 });
    expect(tags.values).toHaveLength(10);
  });

  test("the search description holds at most 30 keys, 10 values a key, 40 characters a value", async () => {
    const text = (await pipelineMetadata(t.services.db.reader, pipeline)).description;
    const lines = text.split("\n").filter((l) => l.startsWith("- "));
    expect(lines).toHaveLength(31);
    expect(lines[30]).toBe("- and 98 more keys: call list_metadata to see them all.");
    expect(lines[0]).toBe(`- a_long: string, 1 source; values ${JSON.stringify(`${LONG.slice(0, 39)}…`)}`);
    // 12 distinct values are few: the 10 most common are shown.
    expect(lines[1]).toStartWith("- a_shade: string[], 1 source; 12 distinct values, e.g. ");
    expect(lines[1]!.match(/"shade\d+"/g)).toHaveLength(10);
    // 60 are many: 3 examples.
    expect(lines[2]).toBe('- a_tags: string[], 1 source; 60 distinct values, e.g. "tag0", "tag1", "tag10"');
    expect(text).not.toContain("m00");
    expect(text.length).toBeLessThan(4000);
  });
});
