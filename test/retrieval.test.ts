/**
 * Retrieval: a small corpus of text, file and url sources on distinct topics, each with
 * a rare term (support/retrieval-corpus.ts), ingested by the real engine and searched
 * through POST /api/rag/query in every mode. Ranking, score bounds and order, metadata,
 * topK/minScore/filter, key isolation, a source added later, and an embedding backend
 * that goes down (the fake Ollama). Deletes racing queries and the knowledge-base door
 * are in search-doors.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeApp, type TestApp } from "./support/app";
import { startFakeOllama, type FakeOllama } from "./support/fake-ollama";
import { bytesOf, Client, waitFor, type SourceJson } from "./support/ingest";
import { CORPUS, FILE, type Hit, MODES, OTHER, PAGE, searchWith } from "./support/retrieval-corpus";

let t: TestApp;
let c: Client;
let fake: FakeOllama;
let site: ReturnType<typeof Bun.serve>;
let pipelineA: string;
let keyA: string;
let pipelineB: string;
let keyB: string;
const idOf = new Map<string, string>(); // term → source id
let sourcesA: SourceJson[];
let sourcesB: SourceJson[];

beforeAll(async () => {
  fake = await startFakeOllama({ models: { "all-minilm": 384 } });
  site = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response(PAGE.text, { headers: { "content-type": "text/plain; charset=utf-8" } }),
  });
  t = await makeApp({
    ollamaUrl: fake.url,
    fetchAllow: ["127.0.0.1"],
    workers: 2,
    queryRate: 100_000,
    queryBurst: 100_000,
  });
  c = await Client.create(t);
  pipelineA = await c.pipeline({ name: "Corpus A", chunkSize: 400, chunkOverlap: 40, retrievalTopK: 3 });
  pipelineB = await c.pipeline({ name: "Corpus B", chunkSize: 400, chunkOverlap: 40 });
  [keyA, keyB] = await Promise.all([c.key(pipelineA), c.key(pipelineB)]);
  for (const d of CORPUS) idOf.set(d.term, (await c.addText(pipelineA, d.text, d.name)).id);
  const { created } = await c.upload(pipelineA, FILE.fileName, bytesOf(FILE.text));
  idOf.set(FILE.term, created.id);
  const page = await c.addSource(pipelineA, { type: "url", url: `http://127.0.0.1:${site.port}/lighthouse.txt` });
  if (page.status !== 201) throw new Error(`url source: ${page.status} ${page.text}`);
  idOf.set(PAGE.term, page.body.id);
  for (const d of OTHER) idOf.set(d.term, (await c.addText(pipelineB, d.text, d.name)).id);
  sourcesA = await c.allSettled(pipelineA, 40_000);
  sourcesB = await c.allSettled(pipelineB, 40_000);
}, 60_000);

afterAll(async () => {
  site?.stop(true);
  await t?.close();
  await fake?.stop();
});

/** POST /api/rag/query with pipeline A's key unless another is given; expects 200. */
const search = (body: Record<string, unknown>, key = keyA): Promise<Hit[]> => searchWith(c, key, body);

const chunksOf = (sources: SourceJson[]) => sources.reduce((n, s) => n + s.chunkCount, 0);

describe("the corpus", () => {
  test("every source is ready with one chunk", () => {
    expect(sourcesA.map((s) => [s.name, s.status, s.error])).toEqual(sourcesA.map((s) => [s.name, "ready", null]));
    expect(sourcesA).toHaveLength(CORPUS.length + 2);
    expect(sourcesB.every((s) => s.status === "ready")).toBe(true);
    expect(chunksOf(sourcesA)).toBe(CORPUS.length + 2);
  });
});

describe("ranking", () => {
  const lexical = [...CORPUS, FILE, PAGE].flatMap((d) => MODES.map((mode) => [mode, d.ask, d.term] as const));
  test.each(lexical)("%s: %p ranks its source first", async (mode, ask, term) => {
    const hits = await search({ query: ask, mode, topK: 5 });
    expect(hits.map((h) => h.metadata.sourceId)[0]).toBe(idOf.get(term)!);
    expect(hits[0]!.content).toContain(term);
  });

  const exact = [
    "ERR_7731",
    "PX-9912-B",
    "INV-20417",
    "Zephyrion-4b",
    "velcorastat",
    "Vasquez-Holloway",
    "VLAN-4093",
    "8817",
    "Quorvath",
  ];
  test.each(exact)("hybrid: the exact term %p finds its chunk first", async (term) => {
    const hits = await search({ query: term, mode: "hybrid", topK: 5 });
    expect(hits[0]?.content).toContain(term);
  });

  test.each(MODES)("%s: scores are in [0, 1] and sorted best first", async (mode) => {
    for (const query of ["heather honey", "the pump and the router", "ERR_7731 PX-9912-B"]) {
      const scores = (await search({ query, mode, topK: 100 })).map((h) => h.score);
      expect(scores.length).toBeGreaterThan(0);
      for (const s of scores) expect(s >= 0 && s <= 1).toBe(true);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
    }
  });

  test("metadata names the source: id, name, chunk index, type, and url or fileName", async () => {
    const [text] = await search({ query: "Brahms", mode: "keyword", topK: 1 });
    expect(text!.metadata).toMatchObject({
      sourceId: idOf.get("Brahms"),
      sourceName: "Cello",
      chunkIndex: 0,
      sourceType: "text",
    });
    expect(text!.metadata.url).toBeUndefined();
    expect(text!.metadata.fileName).toBeUndefined();
    const [file] = await search({ query: "Quorvath", mode: "keyword", topK: 1 });
    expect(file!.metadata).toMatchObject({
      sourceId: idOf.get("Quorvath"),
      sourceType: "file",
      fileName: FILE.fileName,
      chunkIndex: 0,
    });
    const [page] = await search({ query: "Snelgrove", mode: "keyword", topK: 1 });
    expect(page!.metadata).toMatchObject({
      sourceId: idOf.get("Snelgrove"),
      sourceType: "url",
      url: `http://127.0.0.1:${site.port}/lighthouse.txt`,
    });
    expect(typeof page!.metadata.sourceName).toBe("string");
  });

  const syntax = [
    '"PX-9912-B"',
    "text:Brahms",
    "Brahms~2",
    "(Brahms OR",
    "Brahms\\",
    "Brahms*",
    "+Brahms -sonata",
    "Brahms AND NOT",
    "Brahms' OR '1'='1",
  ];
  test.each(syntax)("keyword and hybrid: query-syntax characters are plain text: %p", async (query) => {
    const term = query.includes("PX") ? "PX-9912-B" : "Brahms";
    for (const mode of ["keyword", "hybrid"])
      expect((await search({ query, mode, topK: 3 }))[0]?.content).toContain(term);
  });

  test("a query without letters or digits answers 200 in every mode", async () => {
    for (const mode of MODES) {
      const hits = await search({ query: "?!… ¿¡ —", mode, topK: 3 });
      for (const h of hits) expect(h.score >= 0 && h.score <= 1).toBe(true);
    }
  });

  test("keyword mode with no usable term answers [] (not an error)", async () => {
    for (const query of ["???", "the of and", "zzqxwv"]) expect(await search({ query, mode: "keyword" })).toEqual([]);
  });
});

describe("topK", () => {
  const bad: [string, unknown][] = [
    ["0", 0],
    ["101", 101],
    ["2.5", 2.5],
    ['"3"', "3"],
    ["-1", -1],
    ["null", null],
  ];
  test.each(bad)("topK %s is 400 invalid_request", async (_n, topK) => {
    const r = await c.query(keyA, { query: "honey", topK });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("invalid_request");
  });

  test.each(MODES)("%s: topK 1 gives one result; missing gives the pipeline's retrievalTopK (3)", async (mode) => {
    expect(await search({ query: "the pump and the router and the honey and the train", mode, topK: 1 })).toHaveLength(
      1,
    );
    const r = await c.query(keyA, { query: "the pump and the router and the honey and the train", mode });
    expect(r.body.topK).toBe(3);
    expect(r.body.results).toHaveLength(3);
  });

  test("topK 100 on a pipeline with fewer chunks returns every chunk once (vector mode)", async () => {
    const r = await c.query(keyA, { query: "anything at all", mode: "vector", topK: 100 });
    expect(r.body.topK).toBe(100);
    const ids = r.body.results.map((h: Hit) => `${h.metadata.sourceId}:${h.metadata.chunkIndex}`);
    expect(ids).toHaveLength(chunksOf(sourcesA));
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("minScore", () => {
  test.each(["vector", "keyword"] as const)(
    "%s: above the best score → []; a middle one cuts the tail",
    async (mode) => {
      const query = "the pump and the router and the honey and the train";
      const all = await search({ query, mode, topK: 100 });
      expect(all.length).toBeGreaterThan(2);
      const best = all[0]!.score;
      expect(best).toBeLessThan(1);
      expect(await search({ query, mode, topK: 100, minScore: Math.min(1, best + 0.001) })).toEqual([]);
      const cut = all[1]!.score;
      const kept = await search({ query, mode, topK: 100, minScore: cut });
      expect(kept.length).toBeGreaterThanOrEqual(2);
      expect(kept.length).toBeLessThan(all.length);
      for (const h of kept) expect(h.score).toBeGreaterThanOrEqual(cut);
    },
  );

  test("hybrid: minScore keeps a chunk by its blended score, whichever lists found it", async () => {
    const query = "velcorastat migraine";
    const all = await search({ query, mode: "hybrid", topK: 100 });
    const cut = all[2]!.score;
    const kept = await search({ query, mode: "hybrid", topK: 100, minScore: cut });
    expect(kept.map((h) => h.metadata.sourceId)).toEqual(
      all.filter((h) => h.score >= cut).map((h) => h.metadata.sourceId),
    );
  });
});

describe("filter.sourceIds", () => {
  test.each(MODES)("%s: only the named sources come back", async (mode) => {
    const allowed = [idOf.get("PX-9912-B")!, idOf.get("Valdorre")!];
    const hits = await search({
      query: "hydraulic pump heather honey volcano",
      mode,
      topK: 10,
      filter: { sourceIds: allowed },
    });
    expect(new Set(hits.map((h) => h.metadata.sourceId))).toEqual(new Set(allowed));
  });

  test.each(MODES)("%s: an unknown id (quotes included) → []", async (mode) => {
    for (const id of ["00000000-0000-0000-0000-000000000000", "x' OR '1'='1", "nope"]) {
      expect(await search({ query: "hydraulic pump", mode, filter: { sourceIds: [id] } })).toEqual([]);
    }
  });
});

test("filter.sourceIds: an id longer than 64 characters is 400 naming it", async () => {
  const r = await c.query(keyA, { query: "pump", filter: { sourceIds: ["x".repeat(65)] } });
  expect(r.status).toBe(400);
  expect(r.body.error.details[0].field).toBe("filter.sourceIds.0");
});

describe("filter.sourceIds is applied before the topK cut", () => {
  let id: string;
  let key: string;
  let weak: string;
  beforeAll(async () => {
    id = await c.pipeline({ name: "Filter depth", chunkSize: 2000, chunkOverlap: 0 });
    key = await c.key(id);
    // 30 sources say "zorblax" over and over; one says it once in a long text, so it ranks last.
    for (let i = 0; i < 30; i++)
      await c.addText(id, `zorblax zorblax zorblax report ${i}: zorblax everywhere, zorblax again.`, `strong ${i}`);
    weak = (
      await c.addText(
        id,
        `${"A long note about gardens, rivers and the weather in spring. ".repeat(20)}Once, zorblax.`,
        "weak",
      )
    ).id;
    await c.allSettled(id);
  });

  test.each(MODES)("%s: the one allowed source comes back even though 30 others outrank it", async (mode) => {
    const unfiltered = await search({ query: "zorblax", mode, topK: 3 }, key);
    expect(unfiltered.map((h) => h.metadata.sourceId)).not.toContain(weak);
    const hits = await search({ query: "zorblax", mode, topK: 3, filter: { sourceIds: [weak] } }, key);
    expect(hits.map((h) => h.metadata.sourceId)).toEqual([weak]);
  });
});

describe("key isolation", () => {
  test.each(MODES)("%s: A's key never returns B's chunks, even with B's source ids in the filter", async (mode) => {
    const idsB = new Set(sourcesB.map((s) => s.id));
    for (const query of ["Halcyon drone gyroscope QZ-4410", "Oberkassel kiln stoneware", "volcano invoice"]) {
      const hits = await search({ query, mode, topK: 100 });
      expect(hits.filter((h) => idsB.has(h.metadata.sourceId) || /Halcyon|Oberkassel/.test(h.content))).toEqual([]);
      expect(await search({ query, mode, topK: 100, filter: { sourceIds: [...idsB] } })).toEqual([]);
    }
    // B's key does see them.
    const own = await search({ query: "Halcyon drone gyroscope", mode, topK: 1 }, keyB);
    expect(own[0]?.metadata.sourceId).toBe(idOf.get("Halcyon")!);
  });
});

describe("a source added later", () => {
  test.each(MODES)("%s: is found as soon as it is ready", async (mode) => {
    const term = `Glimmerdorf${mode}`;
    const added = await c.addText(
      pipelineB,
      `The ${term} observatory tracks comets from the northern ridge every winter.`,
      term,
    );
    await c.settled(pipelineB, added.id);
    const hits = await search({ query: `${term} observatory comets`, mode, topK: 3 }, keyB);
    expect(hits[0]?.metadata.sourceId).toBe(added.id);
  });
});

describe("embedding backend down", () => {
  let ollamaId: string;
  let ollamaKey: string;
  let emptyKey: string;

  beforeAll(async () => {
    ollamaId = await c.pipeline({ name: "On Ollama", embeddingModel: "ollama/all-minilm" });
    ollamaKey = await c.key(ollamaId);
    emptyKey = await c.key(await c.pipeline({ name: "Empty on Ollama", embeddingModel: "ollama/all-minilm" }));
    for (const d of CORPUS.slice(0, 3)) await c.addText(ollamaId, d.text, d.name);
    const settled = await c.allSettled(ollamaId);
    if (!settled.every((s) => s.status === "ready")) throw new Error(`ollama sources: ${JSON.stringify(settled)}`);
    // While up, the vector path works.
    const up = await c.query(ollamaKey, { query: "the ash of the volcano", mode: "vector", topK: 3 });
    if (up.status !== 200 || up.body.results.length !== 3) throw new Error(`query while up: ${up.status} ${up.text}`);
    await fake.down();
  });

  test.each(["vector", "hybrid"] as const)("%s: 503 embedding_unavailable, quickly", async (mode) => {
    const started = performance.now();
    const r = await c.query(ollamaKey, { query: `hydraulic pump question asked in ${mode} mode`, mode });
    const ms = performance.now() - started;
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe("embedding_unavailable");
    expect(r.body.error.message).toContain('keyword mode still works (mode: "keyword")');
    expect(ms).toBeLessThan(15_000);
  });

  test("keyword still answers 200 with results", async () => {
    const r = await c.query(ollamaKey, { query: "ERR_7731 certificate", mode: "keyword" });
    expect(r.status).toBe(200);
    expect(r.body.results[0].content).toContain("ERR_7731");
  });

  test.each(MODES)("%s: an empty pipeline on the stopped backend answers []", async (mode) => {
    const r = await c.query(emptyKey, { query: "anything", mode });
    expect(r.status).toBe(200);
    expect(r.body.results).toEqual([]);
  });

  test("a pipeline whose model was changed without a re-index still answers with the model its index was built with", async () => {
    const patched = await c.call("PATCH", `/api/rag/pipelines/${pipelineB}`, { embeddingModel: "ollama/all-minilm" });
    expect(patched.status).toBe(200);
    expect(patched.body.embeddingModel).toBe("ollama/all-minilm");
    for (const mode of MODES) {
      const hits = await search({ query: "Oberkassel kiln stoneware", mode, topK: 1 }, keyB);
      expect(hits[0]?.metadata.sourceId).toBe(idOf.get("Oberkassel")!);
    }
  });

  test("a pipeline whose only source was deleted answers [] in every mode, backend down or not", async () => {
    const id = await c.pipeline({ name: "Emptied" });
    const key = await c.key(id);
    const s = await c.addText(id, "A single note about tangerines.", "only");
    await c.settled(id, s.id);
    expect((await c.call("DELETE", `/api/rag/pipelines/${id}/sources/${s.id}`)).status).toBe(200);
    for (const mode of MODES) expect(await search({ query: "tangerines", mode }, key)).toEqual([]);
    expect((await c.call("PATCH", `/api/rag/pipelines/${id}`, { embeddingModel: "ollama/all-minilm" })).status).toBe(
      200,
    );
    for (const mode of MODES) expect(await search({ query: "tangerines", mode }, key)).toEqual([]);
  });

  test("when the backend is back, vector queries answer again", async () => {
    fake.up();
    const r = await waitFor(
      "a vector query to answer 200",
      async () => {
        const reply = await c.query(ollamaKey, { query: "the loader pump again", mode: "vector", topK: 1 });
        return reply.status === 200 ? reply : null;
      },
      15_000,
    );
    expect(r.body.results).toHaveLength(1); // the fake's vectors carry no meaning: only the path is checked
  });
});
