/**
 * What the cheaper paths of two query options (docs/API.md, Query) must still answer,
 * through POST /api/rag/query with a key on real SQLite and LanceDB:
 *
 * - `groupBy: "source", perSource: N`: each chosen source's best N chunks, also when
 *   other sources' chunks outrank its second best (its chunks come from a search
 *   narrowed to the chosen sources, not from a shared pool: retrieval/grouping.ts);
 * - facets counted from the terms column's bytes (vectors/facet-counts.ts): multi-byte
 *   values, a key that begins another key's name, numbers and booleans, runs of chunks
 *   with the same terms.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeApp, type TestApp } from "./support/app";
import { Client } from "./support/ingest";

let t: TestApp;
let c: Client;

beforeAll(async () => {
  t = await makeApp({ workers: 1, queryRate: 100_000, queryBurst: 100_000 });
  c = await Client.create(t);
}, 60_000);

afterAll(async () => {
  await t?.close();
});

type Hit = { score: number; metadata: { sourceId: string; chunkIndex: number } };

describe("perSource", () => {
  let key: string;
  let longId: string;
  const OTHERS = 60;

  beforeAll(async () => {
    const id = await c.pipeline({ name: "Grouped pool", chunkSize: 200, chunkOverlap: 0 });
    key = await c.key(id);
    // Its first chunk is the best match; its others hold one of the two words (part i
    // i + 1 times) among many, so each of the 60 short notes below, holding both, outranks them.
    const filler = "the committee reviewed budgets rooms timetables minutes agendas and the catering";
    const paragraphs = [
      "zebra stripes, zebra stripes, zebra stripes",
      ...Array.from({ length: 4 }, (_, i) => `Part ${i}: ${filler} ${"zebra ".repeat(i + 1)}${filler}.`),
    ];
    longId = (await c.addText(id, paragraphs.join("\n\n"), "Long")).id;
    for (let i = 0; i < OTHERS; i++) await c.addText(id, `zebra stripes note ${i}`, `Note ${i}`);
    const settled = await c.allSettled(id, 60_000);
    if (settled.some((s) => s.status !== "ready")) throw new Error(`not ready: ${JSON.stringify(settled)}`);
  }, 120_000);

  test("a chosen source keeps its best N chunks though other sources outrank them", async () => {
    const body = { query: "zebra stripes", mode: "keyword", topK: 1, groupBy: "source", perSource: 3 };
    const r = await c.query(key, body);
    expect(r.status).toBe(200);
    const hits = r.body.results as Hit[];
    expect(hits.map((h) => h.metadata.sourceId)).toEqual([longId, longId, longId]);
    expect(hits[0]!.metadata.chunkIndex).toBe(0);
    const scores = hits.map((h) => h.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    // The same chunks, with the same scores, as a search of that source alone.
    const alone = await c.query(key, {
      query: "zebra stripes",
      mode: "keyword",
      topK: 3,
      filter: { sourceIds: [longId] },
    });
    expect(hits).toEqual(alone.body.results);
  });

  // Hybrid and vector mode read the chosen sources' chunks whole and score them (vectors/source-chunks.ts).
  for (const mode of ["hybrid", "vector"])
    test(`${mode}: each chosen source keeps its best N chunks, as a search of it alone ranks them`, async () => {
      const query = "zebra stripes";
      const r = await c.query(key, { query, mode, topK: 2, groupBy: "source", perSource: 3 });
      expect(r.status).toBe(200);
      const groups = Map.groupBy(r.body.results as Hit[], (h) => h.metadata.sourceId);
      expect(groups.get(longId)?.length).toBe(3);
      for (const [sourceId, hits] of groups) {
        const alone = await c.query(key, { query, mode, topK: 3, filter: { sourceIds: [sourceId] } });
        expect(hits).toEqual(alone.body.results);
      }
    });

  test("with perSource 1 the groups are the plain search's first chunk of each source", async () => {
    const plain = (await c.query(key, { query: "zebra stripes", mode: "keyword", topK: 50 })).body.results as Hit[];
    const grouped = (await c.query(key, { query: "zebra stripes", mode: "keyword", topK: 5, groupBy: "source" })).body
      .results as Hit[];
    const firsts = plain.filter((h, i) => plain.findIndex((o) => o.metadata.sourceId === h.metadata.sourceId) === i);
    expect(grouped).toEqual(firsts.slice(0, 5));
  });
});

describe("groupBy when one source fills the first pool", () => {
  test("the deeper pool still gives topK sources, the plain search's first chunk of each", async () => {
    const id = await c.pipeline({ name: "One source first", chunkSize: 200, chunkOverlap: 0 });
    const key = await c.key(id);
    // Twelve chunks that each outrank every note: a pool of 2 × topK holds this one source only.
    const filler = "on the island the rangers counted them at dawn and again at dusk near the jetty";
    const parts = Array.from(
      { length: 12 },
      (_, i) => `Part ${i}: the lighthouse keeper wrote that the lighthouse lamp lit the lighthouse stairs ${filler}.`,
    );
    await c.addText(id, parts.join("\n\n"), "Long");
    for (let i = 0; i < 8; i++)
      await c.addText(id, `Note ${i}: a lighthouse among the ${filler} and the gulls.`, `Note ${i}`);
    // Texts without the word make it rare, so three of it outrank one.
    for (let i = 0; i < 30; i++) await c.addText(id, `Other ${i}: ${filler}.`, `Other ${i}`);
    const settled = await c.allSettled(id, 60_000);
    expect(settled.every((s) => s.status === "ready")).toBe(true);
    const query = { query: "lighthouse", mode: "keyword" };
    // Every row in the full-text index: rows outside it score by other statistics (vectors/tail-scores.ts).
    await t.services.vectorStore.upkeep();
    const plain = (await c.query(key, { ...query, topK: 50 })).body.results as Hit[];
    expect(plain.slice(0, 10).every((h) => h.metadata.sourceId === plain[0]!.metadata.sourceId)).toBe(true);
    const grouped = (await c.query(key, { ...query, topK: 5, groupBy: "source" })).body.results as Hit[];
    const firsts = plain.filter((h, i) => plain.findIndex((o) => o.metadata.sourceId === h.metadata.sourceId) === i);
    expect(grouped).toHaveLength(5);
    expect(grouped).toEqual(firsts.slice(0, 5));
  });
});

describe("facets from the terms column's bytes", () => {
  let key: string;

  beforeAll(async () => {
    const id = await c.pipeline({ name: "Facet bytes", chunkSize: 200, chunkOverlap: 0 });
    key = await c.key(id);
    const add = async (content: string, metadata: Record<string, unknown>) => {
      const r = await c.addSource(id, { type: "text", content, metadata });
      expect(r.status).toBe(201);
    };
    // Several chunks each: runs of rows with the same terms.
    const part = (w: string, i: number) =>
      `${w} report part ${i} on the harbour: the cranes, the quays, the tides and the ships that came in and left again.`;
    const three = (w: string) => [0, 1, 2].map((i) => part(w, i)).join("\n\n");
    await add(three("alpha"), { team: "Zürich", te: "x", n: 3, ok: true });
    await add(three("beta"), { team: "東京", te: "y", n: 3, ok: false });
    await add(three("gamma"), { team: "Zürich", n: 4.5 });
    await c.allSettled(id);
  });

  test("counts each key's values exactly, whatever their bytes", async () => {
    const r = await c.query(key, { query: "report", facets: ["team", "te", "n", "ok", "t"] });
    expect(r.status).toBe(200);
    expect(r.body.facets).toEqual({
      team: [
        { value: "Zürich", count: 6 },
        { value: "東京", count: 3 },
      ],
      te: [
        { value: "x", count: 3 },
        { value: "y", count: 3 },
      ],
      n: [
        { value: 3, count: 6 },
        { value: 4.5, count: 3 },
      ],
      ok: [
        { value: false, count: 3 },
        { value: true, count: 3 },
      ],
      t: [],
    });
  });
});
