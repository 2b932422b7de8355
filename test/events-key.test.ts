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
