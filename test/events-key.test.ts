/** GET /api/rag/events: the event stream behind a key with the ingest scope (docs/API.md, Events). */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { email, makeApp, type TestApp } from "./support/app";
import { waitFor } from "./support/wait";

let t: TestApp;
let cookie: string;
let pipelineId: string;
const keys: Record<string, string> = {};

beforeAll(async () => {
  t = await makeApp();
  cookie = await t.signup(email("events-key"));
  pipelineId = (await t.call("POST", "/api/rag/pipelines", { cookie, body: { name: "events door" } })).body.id;
  for (const [name, scopes] of [
    ["ingest", ["ingest"]],
    ["query", ["query"]],
  ] as const) {
    const r = await t.call("POST", `/api/rag/pipelines/${pipelineId}/keys`, { cookie, body: { name, scopes } });
    expect(r.status).toBe(201);
    keys[name] = r.body.key;
  }
});
afterAll(() => t.close());

/** Opens the stream and reads until `until` matches what has arrived, then hangs up. */
async function readStream(headers: Record<string, string>, until: RegExp): Promise<string> {
  const abort = new AbortController();
  const res = await t.handle(
    new Request("http://localhost/api/rag/events?lastEventId=0", { headers, signal: abort.signal }),
  );
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  await waitFor("the event in the stream", async () => {
    const { value } = await reader.read();
    text += decoder.decode(value ?? new Uint8Array(), { stream: true });
    return until.test(text);
  });
  abort.abort();
  await reader.cancel().catch(() => {});
  return text;
}

describe("the key door of the event stream", () => {
  test("an ingest key reads its pipeline's events", async () => {
    const created = await t.call("POST", `/api/rag/pipelines/${pipelineId}/sources`, {
      cookie,
      body: { type: "text", name: "door", content: "Keys that write may also watch." },
    });
    expect(created.status).toBe(201);
    const text = await readStream({ authorization: `Bearer ${keys.ingest}` }, /event: source\.ready/);
    expect(text).toContain(`"sourceId":"${created.body.id}"`);
    expect(text).toContain(`"pipelineId":"${pipelineId}"`);
  });

  const refused: [string, () => Record<string, string>, number, string][] = [
    ["no key", () => ({}), 401, "invalid_api_key"],
    ["an unknown key", () => ({ authorization: `Bearer rag_${"x".repeat(40)}` }), 401, "invalid_api_key"],
    ["a key without the ingest scope", () => ({ authorization: `Bearer ${keys.query}` }), 403, "insufficient_scope"],
    ["a session cookie", () => ({ cookie }), 401, "invalid_api_key"],
  ];
  test.each(refused)("%s is refused", async (_, headers, status, code) => {
    const res = await t.handle(new Request("http://localhost/api/rag/events", { headers: headers() }));
    expect(res.status).toBe(status);
    expect((await res.json()).error.code).toBe(code);
  });
});

/** Reads `res`'s stream until it ends: how long that took, or null when it was still open after `limitMs`. */
async function endOf(res: Response, limitMs: number): Promise<number | null> {
  const reader = res.body!.getReader();
  const started = Date.now();
  let timer: Timer | undefined;
  const late = new Promise<null>((r) => (timer = setTimeout(() => r(null), limitMs)));
  const ended = (async () => {
    while (!(await reader.read()).done);
    return Date.now() - started;
  })();
  const took = await Promise.race([ended, late]);
  clearTimeout(timer);
  if (took === null) await reader.cancel().catch(() => {});
  return took;
}

describe("a key that stops holding ends its open stream", () => {
  const newKey = async (body: Record<string, unknown>) => {
    const r = await t.call("POST", `/api/rag/pipelines/${pipelineId}/keys`, {
      cookie,
      body: { scopes: ["ingest"], ...body },
    });
    expect(r.status).toBe(201);
    return r.body as { id: string; key: string };
  };
  const stream = async (key: string) => {
    const res = await t.handle(
      new Request("http://localhost/api/rag/events", { headers: { authorization: `Bearer ${key}` } }),
    );
    expect(res.status).toBe(200);
    return res;
  };

  test("revoked: the stream ends at once", async () => {
    const k = await newKey({ name: "revoked while watching" });
    const res = await stream(k.key);
    const del = await t.call("DELETE", `/api/rag/pipelines/${pipelineId}/keys/${k.id}`, { cookie });
    expect(del.status).toBe(200);
    expect(await endOf(res, 5000)).toBeLessThan(1000);
  });

  test("expired: the stream ends within the stream's check, and the key is refused", async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const k = await newKey({ name: "expires while watching", expiresAt });
    const res = await stream(k.key);
    // 1.5 s to expiry, then at most one check interval (2 s).
    const took = await endOf(res, 8000);
    expect(took).not.toBeNull();
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(expiresAt));
    expect(took!).toBeLessThan(1500 + 2000 + 1000);
    const again = await t.handle(
      new Request("http://localhost/api/rag/events", { headers: { authorization: `Bearer ${k.key}` } }),
    );
    expect(again.status).toBe(401);
    expect((await again.json()).error.message).toMatch(/expired/);
  });
});
