import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeApp, type TestApp } from "./support/app";

let t: TestApp;
let cookie: string;
let pipelineId: string;
let apiKey: string;
beforeAll(async () => {
  t = await makeApp({ maxJsonBytes: 64 * 1024 });
  cookie = await t.signup();
  pipelineId = (await t.call("POST", "/api/rag/pipelines", { cookie, body: { name: "P" } })).body.id;
  apiKey = (await t.call("POST", `/api/rag/pipelines/${pipelineId}/keys`, { cookie, body: { name: "k" } })).body.key;
});
afterAll(() => t.close());

describe("a rag_ key on a session endpoint is 403 api_key_not_allowed", () => {
  const endpoints: [string, string, unknown?][] = [
    ["GET", "/api/rag/pipelines"],
    ["POST", "/api/rag/pipelines", { name: "x" }],
    ["GET", "/api/rag/pipelines/PID"],
    ["PATCH", "/api/rag/pipelines/PID", { name: "x" }],
    ["DELETE", "/api/rag/pipelines/PID"],
    ["GET", "/api/rag/pipelines/PID/keys"],
    ["POST", "/api/rag/pipelines/PID/keys", { name: "x" }],
    ["GET", "/api/auth/me"],
  ];
  const ways: [string, (key: string) => { headers?: Record<string, string>; cookie?: string }][] = [
    ["as Bearer", (k) => ({ headers: { authorization: `Bearer ${k}` } })],
    ["as another scheme", (k) => ({ headers: { authorization: `Token ${k}` } })],
    ["as X-API-Key", (k) => ({ headers: { "x-api-key": k } })],
    ["in place of the cookie", (k) => ({ cookie: `ragd_session=${k}` })],
    ["next to a valid cookie", (k) => ({ headers: { authorization: `Bearer ${k}` }, cookie: "VALID" })],
  ];
  for (const [how, make] of ways) {
    test(`sent ${how}`, async () => {
      for (const [method, path, body] of endpoints) {
        const opts = make(apiKey);
        const r = await t.call(method, path.replace("PID", pipelineId), {
          ...opts,
          cookie: opts.cookie === "VALID" ? cookie : opts.cookie,
          body,
        });
        expect([method, path, r.status, r.body?.error?.code]).toEqual([method, path, 403, "api_key_not_allowed"]);
      }
    });
  }
  test("the pipeline was not touched", async () => {
    const r = await t.call("GET", `/api/rag/pipelines/${pipelineId}`, { cookie });
    expect(r.body.name).toBe("P");
  });
});

describe("CSRF rule for cookie requests that change state", () => {
  test("a foreign Origin is refused; the server's own origin is accepted", async () => {
    const bad = await t.call("POST", "/api/rag/pipelines", {
      cookie,
      body: { name: "x" },
      headers: { origin: "http://evil.example.com" },
    });
    expect(bad.status).toBe(403);
    expect(bad.body.error.code).toBe("csrf_rejected");
    const del = await t.call("DELETE", `/api/rag/pipelines/${pipelineId}`, {
      cookie,
      headers: { origin: "http://evil.example.com" },
    });
    expect(del.status).toBe(403);
    const own = await t.call("PATCH", `/api/rag/pipelines/${pipelineId}`, {
      cookie,
      body: { description: "d" },
      headers: { origin: "http://localhost" },
    });
    expect(own.status).toBe(200);
  });

  test("POST without JSON content type is refused (form posts cannot forge it)", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded"]) {
      const r = await t.call("POST", `/api/rag/pipelines/${pipelineId}/keys`, {
        cookie,
        body: '{"name":"x"}',
        headers: { "content-type": type },
      });
      expect([type, r.status]).toEqual([type, 415]);
    }
    const empty = await t.call("POST", "/api/auth/logout", { cookie });
    expect(empty.status).toBe(403);
    expect(empty.body.error.code).toBe("csrf_rejected");
    expect((await t.call("GET", "/api/auth/me", { cookie })).status).toBe(200);
  });

  test("login from a foreign origin is refused too (login CSRF)", async () => {
    const r = await t.call("POST", "/api/auth/login", {
      body: { email: "a@example.com", password: "password123" },
      headers: { origin: "http://evil.example.com" },
    });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe("csrf_rejected");
  });
});

describe("error bodies", () => {
  const shape = (body: any) => {
    expect(Object.keys(body)).toEqual(["error"]);
    expect(typeof body.error.code).toBe("string");
    expect(typeof body.error.message).toBe("string");
    expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+|node_modules|stack/);
  };

  test("malformed JSON is 400 invalid_request", async () => {
    const r = await t.call("POST", "/api/rag/pipelines", { cookie, body: '{"name": ' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("invalid_request");
    shape(r.body);
  });

  test("a body over the limit is 413 payload_too_large", async () => {
    const r = await t.call("POST", "/api/rag/pipelines", {
      cookie,
      body: { name: "x", description: "d".repeat(70 * 1024) },
    });
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe("payload_too_large");
    shape(r.body);
  });

  test("an unknown route is 404 JSON", async () => {
    for (const path of ["/api/nothing", "/api/rag/pipelines/x/y/z"]) {
      const r = await t.call("GET", path, { cookie });
      expect(r.status).toBe(404);
      expect(r.headers.get("content-type")).toContain("application/json");
      shape(r.body);
    }
  });

  test("an unexpected failure is 500 with a request id and no stack trace", async () => {
    const broken = await makeApp();
    const c = await broken.signup();
    await broken.services.db.atomically((tx) => tx.$client.exec("PRAGMA foreign_keys = OFF; DROP TABLE api_keys;"));
    const r = await broken.call("GET", "/api/rag/pipelines", { cookie: c });
    const k = await broken.call("POST", "/api/rag/query", {
      headers: { authorization: `Bearer rag_${"B".repeat(40)}` },
      body: { query: "x" },
    });
    expect(k.status).toBe(500);
    expect(k.body.error.code).toBe("internal_error");
    expect(k.body.error.requestId).toBe(k.headers.get("x-request-id"));
    expect(k.body.error.message).toContain(k.body.error.requestId);
    shape(k.body);
    expect(r.status).toBe(200);
    await broken.close();
  });

  test("every response carries X-Request-Id", async () => {
    const r = await t.call("GET", "/healthz");
    expect(r.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});
