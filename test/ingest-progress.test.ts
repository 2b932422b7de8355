/**
 * The sources list's `ingest` figures (docs/API.md, Data sources: listing): chunks of the
 * ready sources, chunks done and expected of those processing, and whether a re-index is
 * building, which the dashboard's progress strip and the re-index progress read.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { makeApp, type TestApp } from "./support/app";
import { Client } from "./support/ingest";
import { waitFor } from "./support/wait";

let t: TestApp;
let c: Client;
let pipeline: string;

beforeAll(async () => {
  t = await makeApp({ workers: 1 });
  c = await Client.create(t);
  pipeline = await c.pipeline({ name: "progress", embeddingModel: "builtin", chunkSize: 100, chunkOverlap: 0 });
  for (let i = 0; i < 3; i++) await c.addText(pipeline, `Source ${i}. `.repeat(30), `s${i}`);
  await c.allSettled(pipeline);
}, 30_000);

afterAll(() => t?.close());

const ingest = async () =>
  (await c.call("GET", `/api/rag/pipelines/${pipeline}/sources?page=1&pageSize=1`)).body.ingest;

test("counts the ready sources' chunks; nothing processing, no re-index", async () => {
  const chunks = (await c.sources(pipeline)).reduce((n, s) => n + s.chunkCount, 0);
  expect(chunks).toBeGreaterThan(3);
  expect(await ingest()).toEqual({ reindex: false, chunksReady: chunks, chunksDone: 0, chunksTotal: 0 });
});

test("says a re-index is building until it switches in", async () => {
  const r = await c.call("POST", `/api/rag/pipelines/${pipeline}/reindex`);
  expect(r.status).toBe(202);
  expect((await ingest()).reindex).toBe(true);
  await waitFor("the re-index to switch in", async () => (await ingest()).reindex === false);
  expect((await ingest()).chunksDone).toBe(0);
}, 30_000);
