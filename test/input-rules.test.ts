/**
 * Input rules across features: names, field names in validation errors, and the messages
 * bad input gets (docs/API.md, Conventions and Errors).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { updateUserTier } from "../src/db/queries/users";
import { email, makeApp, type TestApp } from "./support/app";

let t: TestApp;
let cookie: string;
let pipelineId: string;
let kbId: string;
beforeAll(async () => {
  t = await makeApp();
  const e = email("input");
  cookie = await t.signup(e);
  updateUserTier(t.services.db, e, "unlimited");
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
