/**
 * Input rules across features: names, field names in validation errors, and the messages
 * bad input gets (docs/API.md, Conventions and Errors).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { updateUserTier } from "../src/db/repo/users";
import { email, makeApp, type TestApp } from "./support/app";

let t: TestApp;
let cookie: string;
let pipelineId: string;
let kbId: string;
beforeAll(async () => {
  t = await makeApp();
  const e = email("input");
  cookie = await t.signup(e);
  await t.services.db.atomically((tx) => updateUserTier(tx, e, "unlimited"));
  pipelineId = (await t.call("POST", "/api/rag/pipelines", { cookie, body: { name: "P" } })).body.id;
  kbId = (await t.call("POST", "/api/kb", { cookie, body: { name: "K" } })).body.id;
});
afterAll(() => t.close());

/** Every endpoint that takes a name: [label, method, path, body around the name]. */
const NAMED: [string, string, () => string, (name: string) => Record<string, unknown>][] = [
  ["pipeline create", "POST", () => "/api/rag/pipelines", (name) => ({ name })],
  ["pipeline PATCH", "PATCH", () => `/api/rag/pipelines/${pipelineId}`, (name) => ({ name })],
  ["knowledge-base create", "POST", () => "/api/kb", (name) => ({ name })],
  ["API key create", "POST", () => `/api/rag/pipelines/${pipelineId}/keys`, (name) => ({ name })],
  [
    "source create",
    "POST",
    () => `/api/rag/pipelines/${pipelineId}/sources`,
    (name) => ({ type: "text", name, content: "some text" }),
  ],
];

describe("names", () => {
  const blank = ["", " ", "   ", "\t\n", "\u00a0\u2003", "\ufeff "];
  for (const [label, method, path, body] of NAMED) {
    test(`${label}: a whitespace-only name is 400 naming the field`, async () => {
      for (const name of blank) {
        const r = await t.call(method, path(), { cookie, body: body(name) });
        expect([JSON.stringify(name), r.status, r.body?.error?.code, r.body?.error?.details?.[0]?.field]).toEqual([
          JSON.stringify(name),
          400,
          "invalid_request",
          "name",
        ]);
        expect(r.body.error.message).toStartWith("name: must be 1 to 200 characters");
      }
    });
    test(`${label}: a name is stored trimmed, and 200 characters after trimming is the limit`, async () => {
      const ok = await t.call(method, path(), { cookie, body: body("  Café notes \n") });
      expect(ok.status).toBeLessThan(300);
      expect(ok.body.name).toBe("Café notes");
      const long = `  ${"n".repeat(200)}  `;
      const fits = await t.call(method, path(), { cookie, body: body(long) });
      expect([fits.status < 300, fits.body.name]).toEqual([true, "n".repeat(200)]);
      const over = await t.call(method, path(), { cookie, body: body("n".repeat(201)) });
      expect([over.status, over.body?.error?.details?.[0]?.field]).toEqual([400, "name"]);
    });
  }
  test("a source without a name still gets one from its content", async () => {
    const r = await t.call("POST", `/api/rag/pipelines/${pipelineId}/sources`, {
      cookie,
      body: { type: "text", content: "  Derived title text" },
    });
    expect([r.status, r.body.name]).toEqual([201, "Derived title text"]);
  });
  test("the knowledge base made in setup keeps its name", async () => {
    const r = await t.call("GET", `/api/kb/${kbId}`, { cookie });
    expect(r.body.name).toBe("K");
  });
});

describe("validation errors name the query-string field and the true bound", () => {
  const cases: [string, string, string][] = [
    ["page=-1", "page", "must be an integer from 1 to 1000000"],
    ["page=0", "page", "must be an integer from 1 to 1000000"],
    ["page=abc", "page", "must be an integer from 1 to 1000000"],
    ["page=1.5", "page", "must be an integer from 1 to 1000000"],
    ["page=1000001", "page", "must be an integer from 1 to 1000000"],
    ["pageSize=-1", "pageSize", "must be an integer from 1 to 100"],
    ["pageSize=101", "pageSize", "must be an integer from 1 to 100"],
    ["page=2&pageSize=0", "pageSize", "must be an integer from 1 to 100"],
  ];
  for (const [query, field, message] of cases) {
    test(`GET /api/rag/pipelines?${query} names ${field}`, async () => {
      const r = await t.call("GET", `/api/rag/pipelines?${query}`, { cookie });
      expect([r.status, r.body?.error?.code, r.body?.error?.details?.[0]]).toEqual([
        400,
        "invalid_request",
        { field, message },
      ]);
      expect(r.body.error.message).toBe(`${field}: ${message}`);
    });
  }
  test("valid and omitted page fields still work and arrive as numbers", async () => {
    const first = await t.call("GET", "/api/rag/pipelines?page=1&pageSize=1", { cookie });
    expect([first.status, first.body.page, first.body.pageSize, first.body.data.length]).toEqual([200, 1, 1, 1]);
    const plain = await t.call("GET", "/api/rag/pipelines", { cookie });
    expect([plain.status, plain.body.page, plain.body.pageSize]).toEqual([200, 1, 10]);
  });

  const sizes: [unknown, string][] = [
    [-1, "must be an integer of at least 1 (bytes; an empty file cannot be indexed)"],
    [0, "must be an integer of at least 1 (bytes; an empty file cannot be indexed)"],
    [1.5, "must be an integer of at least 1 (bytes; an empty file cannot be indexed)"],
  ];
  for (const [fileSize, message] of sizes) {
    test(`fileSize ${fileSize} is refused with the bound that holds`, async () => {
      const r = await t.call("POST", `/api/rag/pipelines/${pipelineId}/sources`, {
        cookie,
        body: { type: "file", fileName: "a.txt", fileSize },
      });
      expect([r.status, r.body?.error?.details?.[0]]).toEqual([400, { field: "fileSize", message }]);
    });
  }
});

describe("a key that is not a whole ragd key says what is wrong with it", () => {
  let key: string;
  beforeAll(async () => {
    key = (await t.call("POST", `/api/rag/pipelines/${pipelineId}/keys`, { cookie, body: { name: "q" } })).body.key;
  });
  const cases: [string, (k: string) => string, RegExp][] = [
    ["the first 20 characters", (k) => k.slice(0, 20), /^that API key is incomplete: .*40 .*only 16 /],
    ["all but the last character", (k) => k.slice(0, -1), /^that API key is incomplete: .*only 39 /],
    ["rag_ alone", () => "rag_", /^that API key is incomplete: .*only 0 /],
    ["a punctuation character inside", (k) => `${k.slice(0, 20)}-${k.slice(21)}`, /^that API key is malformed: /],
    ["a key of something else", () => "sk-abcdef", /^that is not a ragd API key/],
    ["a revoked or unknown key of the right shape", () => `rag_${"A".repeat(40)}`, /^unknown or revoked API key$/],
  ];
  for (const [label, make, message] of cases) {
    test(label, async () => {
      const r = await t.call("POST", "/api/rag/query", {
        body: { query: "x" },
        headers: { authorization: `Bearer ${make(key)}` },
      });
      expect([r.status, r.body?.error?.code]).toEqual([401, "invalid_api_key"]);
      expect(r.body.error.message).toMatch(message);
    });
  }
});
