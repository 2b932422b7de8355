/**
 * Key scopes and expiry (docs/API.md, API keys): what a key may be created with, and
 * what each door lets it do. One check decides (KeyService.authorize), so the tables
 * below run every kind of key against both key-authenticated doors.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeApp, type TestApp } from "./support/app";

let t: TestApp;
let cookie: string;
let pid: string;
beforeAll(async () => {
  t = await makeApp();
  cookie = await t.signup();
  pid = (await t.call("POST", "/api/rag/pipelines", { cookie, body: { name: "scopes" } })).body.id;
});
afterAll(() => t.close());

const createKey = (body: Record<string, unknown>) =>
  t.call("POST", `/api/rag/pipelines/${pid}/keys`, { cookie, body: { name: "k", ...body } });
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

/** The two key-authenticated doors, each with the scope it needs. */
const doors = {
  query: (h: Record<string, string>) => t.call("POST", "/api/rag/query", { headers: h, body: { query: "hello" } }),
  ingest: (h: Record<string, string>) => t.call("GET", "/api/rag/documents", { headers: h }),
};

describe("creating keys", () => {
  test.each([
    [{}, 201, ["query"]],
    [{ scopes: ["ingest"] }, 201, ["ingest"]],
    [{ scopes: ["query", "ingest"] }, 201, ["query", "ingest"]],
    [{ scopes: [] }, 400, "scopes"],
    [{ scopes: ["admin"] }, 400, "scopes"],
    [{ scopes: ["query", "query"] }, 400, "scopes"],
    [{ scopes: "query" }, 400, "scopes"],
    [{ scopes: [1] }, 400, "scopes"],
    [{ expiresAt: "tomorrow" }, 400, "expiresAt"],
    [{ expiresAt: "2030-01-01" }, 400, "expiresAt"],
    [{ expiresAt: "2001-01-01T00:00:00Z" }, 400, "expiresAt"],
    [{ expiresAt: 1893456000 }, 400, "expiresAt"],
    // Days the calendar does not have are refused, not rolled over into the next month.
    [{ expiresAt: "2099-02-30T00:00:00Z" }, 400, "expiresAt"],
    [{ expiresAt: "2099-04-31T12:00:00+02:00" }, 400, "expiresAt"],
    [{ expiresAt: "2099-12-31T24:00:00Z" }, 400, "expiresAt"],
    [{ expiresAt: "2099-02-28T00:00:00" }, 400, "expiresAt"],
  ])("%j → %i", async (body, status, expected) => {
    const r = await createKey(body);
    expect(r.status).toBe(status);
    if (status === 201) {
      expect(r.body.scopes).toEqual(expected);
      expect(r.body.expiresAt).toBeNull();
    } else {
      expect(r.body.error.code).toBe("invalid_request");
      expect(r.body.error.message).toContain(expected as string);
    }
  });

  test("29 February is a day in a leap year only", async () => {
    expect((await createKey({ expiresAt: "2096-02-29T23:59:59.5-01:00" })).body.expiresAt).toBe(
      "2096-03-01T00:59:59.500Z",
    );
    const r = await createKey({ expiresAt: "2097-02-29T00:00:00Z" });
    expect(r.status).toBe(400);
    expect(r.body.error.details).toEqual([
      {
        field: "expiresAt",
        message: "must be an ISO 8601 date-time with a time zone, on a real day, e.g. 2030-01-31T00:00:00Z",
      },
    ]);
  });

  test("an expiry is stored and listed in UTC; the list shows scopes", async () => {
    const at = new Date(Date.now() + 86_400_000);
    const offset = `${at.toISOString().slice(0, 19)}+00:00`;
    const r = await createKey({ scopes: ["ingest"], expiresAt: offset });
    expect(r.status).toBe(201);
    expect(r.body.expiresAt).toBe(`${at.toISOString().slice(0, 19)}.000Z`);
    const listed = (await t.call("GET", `/api/rag/pipelines/${pid}/keys`, { cookie })).body.find(
      (k: { id: string }) => k.id === r.body.id,
    );
    expect(listed).toMatchObject({ scopes: ["ingest"], expiresAt: r.body.expiresAt });
  });
});

describe("what a key may do", () => {
  test.each([
    [["query"], 200, 403],
    [["ingest"], 403, 200],
    [["query", "ingest"], 200, 200],
  ])("scopes %j: query door %i, ingest door %i", async (scopes, queryStatus, ingestStatus) => {
    const { key } = (await createKey({ scopes, expiresAt: inAnHour() })).body;
    const h = { authorization: `Bearer ${key}` };
    const q = await doors.query(h);
    const i = await doors.ingest(h);
    expect([q.status, i.status]).toEqual([queryStatus, ingestStatus]);
    for (const r of [q, i])
      if (r.status === 403) {
        expect(r.body.error.code).toBe("insufficient_scope");
        expect(r.body.error.message).toMatch(/lacks the "(query|ingest)" scope/);
      }
  });

  test.each(["query", "ingest"] as const)(
    "an expired key is 401 invalid_api_key saying so at the %s door",
    async (door) => {
      const { key, id } = (await createKey({ scopes: ["query", "ingest"] })).body;
      await t.services.db.atomically((tx) =>
        tx.$client.run("UPDATE api_keys SET expires_at = ? WHERE id = ?", ["2020-01-01T00:00:00.000Z", id]),
      );
      const r = await doors[door]({ authorization: `Bearer ${key}` });
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe("invalid_api_key");
      expect(r.body.error.message).toContain("expired");
    },
  );

  test("a key that expires while cached stops working at its expiry", async () => {
    const soon = new Date(Date.now() + 1500).toISOString();
    const { key } = (await createKey({ scopes: ["query", "ingest"], expiresAt: soon })).body;
    const h = { authorization: `Bearer ${key}` };
    expect((await doors.ingest(h)).status).toBe(200);
    await Bun.sleep(Date.parse(soon) - Date.now() + 20);
    const r = await doors.ingest(h);
    expect([r.status, r.body.error.code]).toEqual([401, "invalid_api_key"]);
    expect(r.body.error.message).toContain("expired");
  });

  test("a revoked ingest key is refused at once", async () => {
    const { key, id } = (await createKey({ scopes: ["ingest"] })).body;
    const h = { authorization: `Bearer ${key}` };
    expect((await doors.ingest(h)).status).toBe(200);
    await t.call("DELETE", `/api/rag/pipelines/${pid}/keys/${id}`, { cookie });
    const r = await doors.ingest(h);
    expect([r.status, r.body.error.code]).toEqual([401, "invalid_api_key"]);
  });
});

describe("each door takes only its own credentials", () => {
  test.each([
    ["GET", "/api/rag/documents"],
    ["PUT", "/api/rag/documents/x"],
    ["POST", "/api/rag/documents/batch"],
    ["DELETE", "/api/rag/documents/x"],
  ])("%s %s with a session cookie and no key is 401 invalid_api_key", async (method, path) => {
    const body = method === "GET" || method === "DELETE" ? undefined : { type: "text", content: "x" };
    const r = await t.call(method, path, { cookie, body });
    expect([r.status, r.body.error.code]).toEqual([401, "invalid_api_key"]);
  });

  test("an ingest key on a session endpoint is 403 api_key_not_allowed", async () => {
    const { key } = (await createKey({ scopes: ["ingest"] })).body;
    const r = await t.call("GET", `/api/rag/pipelines/${pid}/sources`, { headers: { authorization: `Bearer ${key}` } });
    expect([r.status, r.body.error.code]).toEqual([403, "api_key_not_allowed"]);
    // ragd's own message names its routes; no scrubbing turns them into "[path]".
    expect(r.body.error.message).toContain("POST /api/rag/query and /api/rag/documents");
  });
});
