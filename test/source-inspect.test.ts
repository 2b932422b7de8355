/**
 * Inspecting a source (docs/API.md, "Inspecting a source"): its chunks page by page with
 * offsets into its extracted text, spans of that text, and its history of events; for the
 * pipeline's owner only.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeApp, type TestApp } from "./support/app";
import { Client } from "./support/ingest";

let t: TestApp;
let c: Client;
let pipeline: string;
let sourceId: string;
const CONTENT = Array.from(
  { length: 12 },
  (_, i) => `Paragraph ${i + 1} of the harbour manual: boats moor at berth ${i + 1} and pay the fee in March.`,
).join("\n\n");

beforeAll(async () => {
  t = await makeApp({ workers: 1 });
  c = await Client.create(t);
  pipeline = await c.pipeline({ name: "inspect", embeddingModel: "builtin", chunkSize: 200, chunkOverlap: 0 });
  sourceId = (await c.addText(pipeline, CONTENT, "manual")).id;
  await c.settled(pipeline, sourceId);
}, 30_000);

afterAll(() => t?.close());

const base = () => `/api/rag/pipelines/${pipeline}/sources/${sourceId}`;

describe("a source's chunks", () => {
  test("come page by page, in order, each the slice of the text its offsets name", async () => {
    const first = await c.call("GET", `${base()}/chunks?page=1&pageSize=3`);
    expect(first.status).toBe(200);
    const total = first.body.total as number;
    expect(total).toBeGreaterThan(3);
    expect(first.body.chunks.map((x: { chunkIndex: number }) => x.chunkIndex)).toEqual([0, 1, 2]);
    const all: { chunkIndex: number; start: number; end: number; text: string }[] = [];
    for (let page = 1; page <= Math.ceil(total / 3); page++)
      all.push(...(await c.call("GET", `${base()}/chunks?page=${page}&pageSize=3`)).body.chunks);
    expect(all.map((x) => x.chunkIndex)).toEqual([...Array(total).keys()]);
    for (const chunk of all) expect(CONTENT.slice(chunk.start, chunk.end)).toBe(chunk.text);
    const past = await c.call("GET", `${base()}/chunks?page=99&pageSize=3`);
    expect(past.body.chunks).toEqual([]);
  });

  test("bad paging is 400 naming the field", async () => {
    const r = await c.call("GET", `${base()}/chunks?pageSize=201`);
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body.error)).toContain("pageSize");
  });
});

test("the text comes as spans of the extracted text", async () => {
  const r = await c.call("GET", `${base()}/text?start=10&end=60`);
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ sourceId, start: 10, end: 60, length: CONTENT.length, more: true, rebuilt: false });
  expect(r.body.text).toBe(CONTENT.slice(10, 60));
});

test("the history lists the source's events, newest first", async () => {
  const r = await c.call("GET", `${base()}/history`);
  expect(r.status).toBe(200);
  const types = r.body.events.map((e: { type: string }) => e.type);
  expect(types[0]).toBe("source.ready");
  expect(types).toContain("source.queued");
  expect(r.body.events.every((e: { sourceId: string }) => e.sourceId === sourceId)).toBe(true);
});

test("another user, an unknown source and no session get nothing", async () => {
  const other = await Client.create(t);
  for (const path of ["chunks", "text", "history"]) {
    expect((await other.call("GET", `${base()}/${path}`)).status).toBe(404);
    expect((await c.call("GET", `/api/rag/pipelines/${pipeline}/sources/nope/${path}`)).status).toBe(404);
    expect((await t.call("GET", `${base()}/${path}`)).status).toBe(401);
  }
});
