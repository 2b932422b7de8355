/**
 * Evaluation sets through the HTTP API (docs/API.md, Evaluation), on a real pipeline
 * with real ingestion: unknown sources are 400 naming them, and a run's figures match
 * a hand computation on a tiny pipeline.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeApp, type TestApp } from "./support/app";
import { Client } from "./support/ingest";

let t: TestApp;
let c: Client;
let pid: string;
const src: Record<"sea" | "money" | "garden", string> = { sea: "", money: "", garden: "" };

beforeAll(async () => {
  t = await makeApp({ workers: 1 });
  c = await Client.create(t);
  pid = await c.pipeline({ name: "evals", embeddingModel: "builtin" });
  src.sea = (await c.addText(pid, "The lighthouse keeper logs the fog horn schedule every evening.", "sea")).id;
  src.money = (await c.addText(pid, "Quarterly budget reviews happen in the second week of April.", "money")).id;
  const garden = await c.addSource(pid, {
    type: "text",
    name: "garden",
    externalId: "doc-garden",
    content: "The garden budget buys tomato seeds and a new lighthouse lamp for the shed.",
  });
  src.garden = garden.body.id;
  await c.allSettled(pid);
}, 30_000);
afterAll(async () => {
  await t?.close();
});

const path = (rest = "") => `/api/rag/pipelines/${pid}/evals${rest}`;

describe("evaluation sets", () => {
  test("unknown source ids are 400 naming every one; nothing is saved", async () => {
    const r = await c.call("POST", path(), {
      name: "bad",
      queries: [
        { query: "fog horn", expectedSourceIds: [src.sea, "no-such-source"] },
        { query: "budget", expectedSourceIds: ["another-missing"] },
      ],
    });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("invalid_request");
    expect(r.body.error.message).toContain("no-such-source");
    expect(r.body.error.message).toContain("another-missing");
    expect(r.body.error.details.map((d: { field: string }) => d.field)).toEqual([
      "queries.0.expectedSourceIds",
      "queries.1.expectedSourceIds",
    ]);
    expect((await c.call("GET", path())).body).toEqual([]);
  });

  test("bad JSON Lines are 400 naming the line; both or neither of queries and jsonl are 400", async () => {
    const bad = await c.call("POST", path(), {
      name: "j",
      jsonl: `{"query":"fog","sources":["${src.sea}"]}\nnot json`,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain("jsonl line 2");
    const neither = await c.call("POST", path(), { name: "j" });
    expect(neither.status).toBe(400);
    const over = await c.call("POST", path(), {
      name: "big",
      queries: Array.from({ length: 1001 }, () => ({ query: "fog", expectedSourceIds: [src.sea] })),
    });
    expect(over.status).toBe(400);
  });

  test("a run's figures match the hand computation, per query and overall", async () => {
    // JSON Lines, with one source named by its externalId.
    const lines = [
      { query: "lighthouse fog horn schedule", sources: [src.sea] },
      { query: "quarterly budget reviews april", sources: [src.sea] },
      { query: "quarterly budget reviews garden", sources: ["doc-garden"] },
      { query: "tomato seeds lighthouse keeper", sources: [src.sea, src.garden] },
    ];
    const created = await c.call("POST", path(), {
      name: "hand",
      jsonl: lines.map((l) => JSON.stringify(l)).join("\n"),
    });
    expect(created.status).toBe(201);
    expect(created.body.queries[2].expectedSourceIds).toEqual([src.garden]);
    const run = await c.call("POST", path(`/${created.body.id}/run`), { modes: ["keyword"], k: 10 });
    expect(run.status, run.text).toBe(200);
    const r = run.body.result;
    expect(r).toMatchObject({ complete: true, evaluated: 4, k: 10, modes: ["keyword"] });
    const ranked = r.queries.map((q: { modes: { keyword: { rankedSourceIds: string[] } } }) => q.modes.keyword);
    // The keyword rankings the figures are computed on.
    expect(ranked[0].rankedSourceIds[0]).toBe(src.sea);
    expect(ranked[1].rankedSourceIds).not.toContain(src.sea);
    expect(ranked[2].rankedSourceIds).toEqual([src.money, src.garden]);
    expect(new Set(ranked[3].rankedSourceIds.slice(0, 2))).toEqual(new Set([src.sea, src.garden]));
    // By hand: q1 found first; q2 never found; q3 found second; q4 both relevant sources first.
    const second = 1 / Math.log2(3);
    const hand = [
      { hitAt1: 1, hitAtK: 1, mrr: 1, ndcgAt10: 1 },
      { hitAt1: 0, hitAtK: 0, mrr: 0, ndcgAt10: 0 },
      { hitAt1: 0, hitAtK: 1, mrr: 0.5, ndcgAt10: second },
      { hitAt1: 1, hitAtK: 1, mrr: 1, ndcgAt10: 1 },
    ];
    hand.forEach((h, i) => {
      for (const [k, v] of Object.entries(h)) expect(ranked[i][k]).toBeCloseTo(v, 9);
    });
    const overall = r.overall.keyword;
    expect(overall.hitAt1).toBeCloseTo(2 / 4, 9);
    expect(overall.hitAtK).toBeCloseTo(3 / 4, 9);
    expect(overall.mrr).toBeCloseTo(2.5 / 4, 9);
    expect(overall.ndcgAt10).toBeCloseTo((2 + second) / 4, 9);

    // Every mode by default; the run is kept and shown with the set.
    const all = await c.call("POST", path(`/${created.body.id}/run`));
    expect(all.status).toBe(200);
    expect(Object.keys(all.body.result.overall).sort()).toEqual(["hybrid", "keyword", "vector"]);
    const runs = await c.call("GET", path(`/${created.body.id}/runs`));
    expect(runs.body.map((x: { id: string }) => x.id)).toEqual([all.body.id, run.body.id]);
    const list = await c.call("GET", path());
    expect(list.body[0]).toMatchObject({ id: created.body.id, queryCount: 4, lastRun: { id: all.body.id } });
  });

  test("another user's pipeline and a missing set are 404; a deleted set is gone", async () => {
    const other = await Client.create(t);
    expect((await other.call("GET", path())).status).toBe(404);
    expect((await c.call("POST", path("/nope/run"), {})).status).toBe(404);
    const s = await c.call("POST", path(), { name: "gone", queries: [{ query: "fog", expectedSourceIds: [src.sea] }] });
    expect((await other.call("DELETE", path(`/${s.body.id}`))).status).toBe(404);
    expect((await c.call("DELETE", path(`/${s.body.id}`))).status).toBe(200);
    expect((await c.call("GET", path(`/${s.body.id}`))).status).toBe(404);
  });

  test("a run's unknown mode or fields are 400", async () => {
    const s = await c.call("POST", path(), { name: "m", queries: [{ query: "fog", expectedSourceIds: [src.sea] }] });
    expect((await c.call("POST", path(`/${s.body.id}/run`), { modes: ["semantic"] })).status).toBe(400);
    expect((await c.call("POST", path(`/${s.body.id}/run`), { mode: "keyword" })).status).toBe(400);
  });
});

test("the OpenAPI document lists the evaluation routes and the owner's query route", async () => {
  const doc = (await t.call("GET", "/docs/openapi.json")).body;
  for (const p of [
    "/api/rag/pipelines/{id}/evals",
    "/api/rag/pipelines/{id}/evals/{evalId}",
    "/api/rag/pipelines/{id}/evals/{evalId}/run",
    "/api/rag/pipelines/{id}/evals/{evalId}/runs",
    "/api/rag/pipelines/{id}/query",
  ])
    expect(Object.keys(doc.paths)).toContain(p);
  expect(doc.paths["/api/rag/pipelines/{id}/reindex"].post.requestBody).toBeDefined();
});
