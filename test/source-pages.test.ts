/**
 * Paging through a pipeline's sources over HTTP: page bounds, search by name
 * (with `%` and `_` taken literally), the status filter, the per-status counts,
 * the unpaged array kept for existing clients, and a pipeline of 20,000 sources
 * whose list and pipeline object stay small. Rows are stored through the named
 * queries in a real SQLite file; ingestion is not what is tested here.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { insertDocument } from "../src/db/repo/documents";
import type { DocumentRow } from "../src/db/schema";
import { newDocumentRow } from "../src/ingest/tasks/queue";
import { makeApp, type TestApp } from "./support/app";

let t: TestApp;
let cookie: string;
let small: string;

type Status = DocumentRow["status"];
interface Seed {
  name: string;
  status: Status;
  type?: DocumentRow["type"];
  content?: string;
}

/** Stores sources straight through the named queries, in one transaction, in the order given. */
async function seed(pipelineId: string, items: Seed[]): Promise<void> {
  const start = Date.now();
  await t.services.db.atomically(async (tx) => {
    for (const [i, s] of items.entries()) {
      const type = s.type ?? "url";
      const row = newDocumentRow(
        {
          collectionId: pipelineId,
          type,
          name: s.name,
          url: type === "url" ? `https://example.com/${i}` : null,
          contentLength: s.content?.length ?? null,
          fileName: type === "file" ? s.name : null,
          fileSize: type === "file" ? 10 : null,
        },
        start + i,
      );
      await insertDocument(tx, { ...row, status: s.status }, s.content);
    }
  });
}

/** A pipeline of `owner` (the free tier allows one each). */
async function newPipeline(name: string, owner: string): Promise<string> {
  const r = await t.call("POST", "/api/rag/pipelines", { cookie: owner, body: { name } });
  expect(r.status).toBe(201);
  return r.body.id;
}

const SMALL: Seed[] = [
  { name: "Report 100% final", status: "ready" },
  { name: "report_2024", status: "ready" },
  { name: "Report 2024", status: "failed" },
  { name: "Budget 100 percent", status: "queued" },
  { name: "Minutes of the board", status: "processing" },
  { name: "scan.pdf", status: "awaiting_upload", type: "file" },
  { name: "Long note", status: "ready", type: "text", content: "x".repeat(5000) },
  ...Array.from({ length: 23 }, (_, i) => ({ name: `filler ${i + 1}`, status: "ready" as Status })),
];
const ALL = SMALL.map((s) => s.name);

beforeAll(async () => {
  t = await makeApp();
  cookie = await t.signup();
  small = await newPipeline("Small", cookie);
  await seed(small, SMALL);
});

afterAll(async () => {
  await t.close();
});

const list = (id: string, qs: string, who = cookie) =>
  t.call("GET", `/api/rag/pipelines/${id}/sources${qs}`, { cookie: who });

describe("GET /api/rag/pipelines/{id}/sources, paged", () => {
  const cases: { qs: string; names: string[]; total?: number; page?: number; pageSize?: number }[] = [
    { qs: "?page=1", names: ALL.slice(0, 20), total: 30, page: 1, pageSize: 20 },
    { qs: "?page=2", names: ALL.slice(20), total: 30, page: 2, pageSize: 20 },
    { qs: "?page=3", names: [], total: 30, page: 3 },
    { qs: "?pageSize=100", names: ALL, total: 30, pageSize: 100 },
    { qs: "?pageSize=1&page=30", names: ["filler 23"], total: 30 },
    { qs: "?q=report", names: ["Report 100% final", "report_2024", "Report 2024"] },
    { qs: "?q=REPORT", names: ["Report 100% final", "report_2024", "Report 2024"] },
    { qs: `?q=${encodeURIComponent("100%")}`, names: ["Report 100% final"] },
    { qs: `?q=${encodeURIComponent("%")}`, names: ["Report 100% final"] },
    { qs: "?q=report_", names: ["report_2024"] },
    { qs: "?q=_", names: ["report_2024"] },
    { qs: "?q=%20%20minutes%20", names: ["Minutes of the board"] },
    { qs: "?q=", names: ALL.slice(0, 20), total: 30 },
    { qs: "?q=nothing-like-this", names: [], total: 0 },
    { qs: "?status=failed", names: ["Report 2024"] },
    { qs: "?sort=-createdAt&pageSize=3", names: ALL.slice(-3).reverse(), total: 30 },
    { qs: "?sort=-createdAt&page=2", names: ALL.slice(0, 10).reverse(), total: 30 },
    { qs: "?sort=createdAt&pageSize=2", names: ALL.slice(0, 2), total: 30 },
    { qs: "?sort=-createdAt&q=report", names: ["Report 2024", "report_2024", "Report 100% final"] },
    { qs: "?status=queued,processing", names: ["Budget 100 percent", "Minutes of the board"] },
    { qs: "?status=awaiting_upload", names: ["scan.pdf"] },
    { qs: "?status=ready&q=report", names: ["Report 100% final", "report_2024"] },
    {
      qs: "?status=ready&pageSize=5&page=2",
      names: ["filler 3", "filler 4", "filler 5", "filler 6", "filler 7"],
      total: 26,
    },
  ];
  for (const c of cases) {
    test(`${c.qs} → ${c.names.length} names`, async () => {
      const r = await list(small, c.qs);
      expect(r.status).toBe(200);
      expect(r.body.data.map((s: { name: string }) => s.name)).toEqual(c.names);
      expect(r.body.total).toBe(c.total ?? c.names.length);
      expect(r.body.totalPages).toBe(Math.ceil(r.body.total / r.body.pageSize));
      if (c.page) expect(r.body.page).toBe(c.page);
      if (c.pageSize) expect(r.body.pageSize).toBe(c.pageSize);
    });
  }

  test("counts give every status of the whole pipeline, whatever q and status ask for", async () => {
    const expected = { awaiting_upload: 1, queued: 1, processing: 1, ready: 26, failed: 1 };
    for (const qs of ["?page=1", "?status=failed", "?q=report&status=ready", "?q=nothing-like-this"]) {
      expect((await list(small, qs)).body.counts).toEqual(expected);
    }
  });

  test("a text source in a page carries the start of its content and its full length", async () => {
    const r = await list(small, "?q=long%20note");
    expect(r.body.data[0].content.length).toBe(2000);
    expect(r.body.data[0].contentLength).toBe(5000);
  });

  const bad: [string, string][] = [
    ["?page=0", "page"],
    ["?page=1000001", "page"],
    ["?page=abc", "page"],
    ["?page=1.5", "page"],
    ["?pageSize=0", "pageSize"],
    ["?pageSize=101", "pageSize"],
    ["?pageSize=-3", "pageSize"],
    ["?status=done", "status"],
    ["?status=ready,", "status"],
    ["?status=READY", "status"],
    ["?status=ready,,failed", "status"],
    [`?q=${"a".repeat(201)}`, "q"],
    ["?sort=name", "sort"],
    ["?sort=-updatedAt", "sort"],
  ];
  for (const [qs, field] of bad) {
    test(`${qs.slice(0, 40)} → 400 naming ${field}`, async () => {
      const r = await list(small, qs);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe("invalid_request");
      expect(r.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    });
  }

  test("without any paging parameter the answer is still the bare array of every source", async () => {
    const r = await list(small, "");
    expect(Array.isArray(r.body)).toBe(true);
    expect(r.body.map((s: { name: string }) => s.name)).toEqual(ALL);
  });

  test("another user's pipeline is 404 with or without paging", async () => {
    const other = await t.signup();
    for (const qs of ["", "?page=1"]) {
      const r = await t.call("GET", `/api/rag/pipelines/${small}/sources${qs}`, { cookie: other });
      expect(r.status).toBe(404);
    }
  });

  test("the pipeline object embeds its first 20 sources, oldest first", async () => {
    const r = await t.call("GET", `/api/rag/pipelines/${small}`, { cookie });
    expect(r.body.sourceCount).toBe(30);
    expect(r.body.dataSources.map((s: { name: string }) => s.name)).toEqual(ALL.slice(0, 20));
  });
});

describe("a pipeline of 20,000 sources", () => {
  const N = 20_000;
  const names = Array.from({ length: N }, (_, i) => `source ${String(i).padStart(5, "0")}`);
  const statusOf = (i: number): Status => (i % 100 === 0 ? "failed" : i % 50 === 1 ? "processing" : "ready");
  let big: string;
  let owner: string;
  const get = (path: string) => t.call("GET", path, { cookie: owner });

  beforeAll(async () => {
    owner = await t.signup();
    big = await newPipeline("Big", owner);
    await seed(
      big,
      names.map((name, i) => ({
        name,
        status: statusOf(i),
        ...(i % 10 === 0 ? { type: "text" as const, content: `${name} `.repeat(400) } : {}),
      })),
    );
  });

  test("page 1 is small and counts every source", async () => {
    const r = await list(big, "?page=1", owner);
    expect(r.status).toBe(200);
    expect(r.text.length).toBeLessThan(50_000);
    expect(r.body.data.map((s: { name: string }) => s.name)).toEqual(names.slice(0, 20));
    expect(r.body.total).toBe(N);
    expect(r.body.totalPages).toBe(N / 20);
    const failed = names.filter((_, i) => statusOf(i) === "failed").length;
    const processing = names.filter((_, i) => statusOf(i) === "processing").length;
    expect(r.body.counts).toEqual({
      awaiting_upload: 0,
      queued: 0,
      processing,
      ready: N - failed - processing,
      failed,
    });
  });

  test("the last page and a search answer with the right totals", async () => {
    const last = await list(big, "?page=200&pageSize=100", owner);
    expect(last.text.length).toBeLessThan(250_000);
    expect(last.body.data.map((s: { name: string }) => s.name)).toEqual(names.slice(N - 100));
    const found = await list(big, "?q=1999", owner);
    const expected = names.filter((n) => n.includes("1999"));
    expect(found.body.total).toBe(expected.length);
    expect(found.body.data.map((s: { name: string }) => s.name)).toEqual(expected.slice(0, 20));
    expect(found.text.length).toBeLessThan(50_000);
    const failed = await list(big, "?status=failed&q=source%2019", owner);
    expect(failed.body.total).toBe(names.filter((n, i) => n.includes("source 19") && statusOf(i) === "failed").length);
  });

  test("the pipeline object stays small and still counts every source", async () => {
    const r = await get(`/api/rag/pipelines/${big}`);
    expect(r.status).toBe(200);
    expect(r.text.length).toBeLessThan(50_000);
    expect(r.body.sourceCount).toBe(N);
    expect(r.body.dataSources).toHaveLength(20);
  });
});
