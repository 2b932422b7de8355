/**
 * The owner's own searches on the session door (docs/API.md, Query): POST
 * /api/rag/pipelines/:id/query takes the query endpoint's body and answers its
 * shape, with the session cookie and the CSRF rule instead of an API key, and
 * creates no key.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { makeApp, type TestApp } from "./support/app";
import { Client } from "./support/ingest";

let t: TestApp;
let c: Client;
let pid: string;

beforeAll(async () => {
  t = await makeApp({ workers: 1 });
  c = await Client.create(t);
  pid = await c.pipeline({ name: "mine", embeddingModel: "builtin" });
  await c.addText(pid, "The lighthouse keeper logs the fog horn schedule every evening.");
  await c.addText(pid, "Quarterly budget reviews happen in the second week of April.");
  await c.allSettled(pid);
}, 30_000);
afterAll(async () => {
  await t?.close();
});

const url = () => `/api/rag/pipelines/${pid}/query`;
const body = { query: "lighthouse fog", topK: 1, mode: "keyword" };

test("the owner searches with the session cookie and gets the query endpoint's answer; no key is created", async () => {
  const r = await c.call("POST", url(), body);
  expect(r.status).toBe(200);
  expect(r.body.results).toHaveLength(1);
  expect(r.body.results[0].content).toContain("lighthouse");
  const key = await c.key(pid);
  const viaKey = await c.query(key, body);
  expect(r.body).toEqual(viaKey.body);
  const keys = (await c.call("GET", `/api/rag/pipelines/${pid}/keys`)).body;
  expect(keys.map((k: { name: string }) => k.name)).toEqual(["test"]);
});

test("without a session 401; a cross-site post 403, a non-JSON one 415 (a form cannot forge it); an API key 403", async () => {
  expect((await t.call("POST", url(), { body })).status).toBe(401);
  const evil = await t.call("POST", url(), { body, cookie: c.cookie, headers: { origin: "https://evil.example" } });
  expect(evil.status).toBe(403);
  expect(evil.body.error.code).toBe("csrf_rejected");
  const form = await t.call("POST", url(), {
    body: JSON.stringify(body),
    cookie: c.cookie,
    headers: { "content-type": "text/plain" },
  });
  expect(form.status).toBe(415);
  const key = await c.key(pid);
  const withKey = await t.call("POST", url(), { body, headers: { authorization: `Bearer ${key}` } });
  expect(withKey.status).toBe(403);
  expect(withKey.body.error.code).toBe("api_key_not_allowed");
});

test("another user's pipeline is 404; a bad body is 400 naming the field", async () => {
  const other = await Client.create(t);
  const r = await other.call("POST", url(), body);
  expect(r.status).toBe(404);
  expect(r.body.error.code).toBe("not_found");
  const bad = await c.call("POST", url(), { query: "fog", topK: 0 });
  expect(bad.status).toBe(400);
  expect(JSON.stringify(bad.body.error)).toContain("topK");
  const unknown = await c.call("POST", url(), { query: "fog", top_k: 3 });
  expect(unknown.status).toBe(400);
  expect(JSON.stringify(unknown.body.error)).toContain("top_k");
});
