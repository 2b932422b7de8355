/**
 * Refresh of url/api sources (docs/API.md, "Refresh and crawl"): the settings and
 * their checks, conditional re-fetches (ETag, Last-Modified), the hash comparison
 * when a server sends neither, and the schedule across a restart.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { rmSync } from "node:fs";
import { buildApp } from "../src/app";
import { closeServices, createServices } from "../src/services";
import { createLogger } from "../src/log";
import { defaultConfig } from "../src/config";
import { DocumentsFixture } from "./support/documents";
import { waitFor } from "./support/ingest";
import { tempDir } from "./support/app";

/** A site on loopback whose pages the tests change; it records the conditional headers it gets. */
function startSite() {
  const state = {
    bodies: new Map<string, string>(),
    hits: new Map<string, number>(),
    answered304: 0,
    conditional: [] as string[],
  };
  const lastModified = "Wed, 21 Oct 2026 07:28:00 GMT";
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      state.hits.set(path, (state.hits.get(path) ?? 0) + 1);
      const body = state.bodies.get(path);
      if (body === undefined) return new Response("gone", { status: 404 });
      const inm = req.headers.get("if-none-match");
      const ims = req.headers.get("if-modified-since");
      if (inm) state.conditional.push(`${path} if-none-match ${inm}`);
      if (ims) state.conditional.push(`${path} if-modified-since ${ims}`);
      const headers: Record<string, string> = { "content-type": "text/plain" };
      if (path.startsWith("/etag")) {
        const etag = `"${Bun.hash(body).toString(16)}"`;
        headers.etag = etag;
        if (inm === etag) return (state.answered304++, new Response(null, { status: 304, headers }));
      }
      if (path.startsWith("/lm")) {
        headers["last-modified"] = lastModified;
        if (ims === lastModified) return (state.answered304++, new Response(null, { status: 304, headers }));
      }
      return new Response(body, { headers });
    },
  });
  return { state, server, url: (path: string) => `http://127.0.0.1:${server.port}${path}` };
}

const site = startSite();
const f = new DocumentsFixture();

beforeAll(async () => {
  await f.open({ fetchAllow: ["127.0.0.1"] });
});
afterAll(async () => {
  await f.close();
  site.server.stop(true);
});

const text = (tag: string) =>
  Array.from({ length: 12 }, (_, i) => `Paragraph ${i} of the ${tag} page says something.`).join(" ");

async function addUrl(path: string, extra: Record<string, unknown> = {}) {
  const r = await f.c.addSource(f.pid, { type: "url", url: site.url(path), ...extra });
  expect(r.status).toBe(201);
  return f.c.settled(f.pid, r.body.id);
}

/** Fetches the source again and waits until that check is recorded. */
async function refetch(id: string) {
  const before = (await f.c.source(f.pid, id))!.lastCheckedAt as string;
  const r = await f.c.call("POST", `/api/rag/pipelines/${f.pid}/sources/${id}/refetch`);
  expect(r.status).toBe(202);
  return waitFor("the re-fetch to be recorded", async () => {
    const s = await f.c.source(f.pid, id);
    return s && s.status === "ready" && s.lastCheckedAt !== before ? s : undefined;
  });
}

describe("settings", () => {
  test.each([
    ["30 seconds", 30],
    ["a fraction", 90.5],
    ["an unknown unit", "5x"],
    ["an empty string", ""],
    ["a boolean", true],
    ["too long", "400d"],
  ])("refreshEvery of %s is 400", async (_, value) => {
    const r = await f.c.addSource(f.pid, { type: "url", url: site.url("/x"), refreshEvery: value });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("invalid_request");
    expect(r.body.error.message).toContain("refreshEvery");
  });

  test("refreshEvery on a text source, crawl on an api source, bad crawl fields are 400", async () => {
    const bad = [
      { type: "text", content: "x", refreshEvery: 3600 },
      { type: "api", url: site.url("/x"), crawl: { depth: 1 } },
      { type: "url", url: site.url("/x"), crawl: { depth: 11 } },
      { type: "url", url: site.url("/x"), crawl: { maxPages: 0 } },
      { type: "url", url: site.url("/x"), crawl: { include: "docs" } },
    ];
    for (const body of bad) expect((await f.c.addSource(f.pid, body)).status).toBe(400);
  });

  test('"1h30m" is stored as 5400 seconds with a due time one interval on; PATCH null removes it', async () => {
    site.state.bodies.set("/settings", text("settings"));
    const s = await addUrl("/settings", { refreshEvery: "1h30m" });
    expect(s.refreshEvery).toBe(5400);
    const due = Date.parse(s.nextCheckAt as string) - Date.now();
    expect(due).toBeGreaterThan(5000 * 1000);
    expect(due).toBeLessThan(5400 * 1100 + 1000);
    const r = await f.c.call("PATCH", `/api/rag/pipelines/${f.pid}/sources/${s.id}`, { refreshEvery: null });
    expect(r.status).toBe(200);
    expect(r.body.refreshEvery).toBeNull();
    expect(r.body.nextCheckAt).toBeNull();
    expect((await f.c.call("POST", `/api/rag/pipelines/${f.pid}/sources/${s.id}/refetch`)).status).toBe(202);
  });

  test("the OpenAPI document has the refetch route and the new source fields", async () => {
    const spec = (await f.t.call("GET", "/docs/openapi.json")).body;
    expect(spec.paths["/api/rag/pipelines/{id}/sources/{sourceId}/refetch"]?.post).toBeDefined();
    const text = JSON.stringify(spec);
    for (const field of ["refreshEvery", "lastCheckedAt", "lastChangedAt", "crawlReport", "crawlSourceId", "maxPages"])
      expect(text).toContain(`"${field}"`);
  });

  test("refetch of a text source is 409", async () => {
    const s = await f.c.addText(f.pid, "some text to index here");
    const r = await f.c.call("POST", `/api/rag/pipelines/${f.pid}/sources/${s.id}/refetch`);
    expect(r.status).toBe(409);
  });
});

describe("re-sync", () => {
  test.each([
    ["ETag", "/etag-a", "if-none-match"],
    ["Last-Modified", "/lm-a", "if-modified-since"],
  ])("%s: an unchanged page answers 304 and nothing is embedded", async (_, path, header) => {
    site.state.bodies.set(path, text(path));
    const s = await addUrl(path);
    expect(s.lastChangedAt).toBeTruthy();
    const inputs = f.fake.stats().inputs;
    const answered = site.state.answered304;
    const after = await refetch(s.id);
    expect(site.state.conditional.some((c) => c.startsWith(`${path} ${header}`))).toBe(true);
    expect(site.state.answered304).toBe(answered + 1);
    expect(f.fake.stats().inputs).toBe(inputs);
    expect(after.chunkCount).toBe(s.chunkCount);
    expect(after.lastChangedAt).toBe(s.lastChangedAt);
    expect(Date.parse(after.lastCheckedAt as string)).toBeGreaterThan(Date.parse(s.lastCheckedAt as string));
  });

  test("without validators the text is compared by hash: unchanged embeds nothing, changed replaces the chunks", async () => {
    site.state.bodies.set("/plain", text("first"));
    const s = await addUrl("/plain");
    const inputs = f.fake.stats().inputs;
    const same = await refetch(s.id);
    expect(f.fake.stats().inputs).toBe(inputs);
    expect(same.lastChangedAt).toBe(s.lastChangedAt);
    expect(site.state.conditional.some((c) => c.startsWith("/plain"))).toBe(false);

    site.state.bodies.set("/plain", text("second"));
    const changed = await refetch(s.id);
    expect(f.fake.stats().inputs).toBeGreaterThan(inputs);
    expect(changed.lastChangedAt).not.toBe(s.lastChangedAt);
    const { chunks } = await f.t.services.vectorStore.documentChunks(f.pid, 1, s.id, 0, 1e9);
    expect(chunks.length).toBe(changed.chunkCount);
    expect(chunks.every((c) => c.text.includes("second") && !c.text.includes("first"))).toBe(true);
  });
});

describe("sources from elsewhere", () => {
  test("a url source without fetch state (stored before refresh existed) shows nulls and can be re-fetched", async () => {
    site.state.bodies.set("/old", text("old"));
    const s = await addUrl("/old");
    await f.t.services.db.atomically((tx) => tx.run(sql`DELETE FROM source_fetches WHERE document_id = ${s.id}`));
    const bare = (await f.c.source(f.pid, s.id))!;
    expect([bare.refreshEvery, bare.lastCheckedAt, bare.lastChangedAt]).toEqual([null, null, null]);
    const after = await refetch(s.id);
    expect(after.lastCheckedAt).toBeTruthy();
  });

  test("a documents API replace with another URL does not send the old URL's validators", async () => {
    // Both pages answer the same Last-Modified: the old validators would get a 304 from the new URL.
    site.state.bodies.set("/lm-old", text("oldpage"));
    site.state.bodies.set("/lm-new", text("newpage"));
    expect((await f.put("moving", { type: "url", url: site.url("/lm-old") })).status).toBe(201);
    expect((await f.settled("moving")).status).toBe("ready");
    const answered = site.state.answered304;
    expect((await f.put("moving", { type: "url", url: site.url("/lm-new") })).status).toBe(200);
    const doc = await f.settled("moving");
    expect(doc.status).toBe("ready");
    expect(site.state.answered304).toBe(answered);
    const { chunks } = await f.t.services.vectorStore.documentChunks(f.pid, 1, doc.id, 0, 1e9);
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.every((c) => c.text.includes("newpage"))).toBe(true);
  });
});

describe("schedule", () => {
  test("a due source is queued by the scheduler as an ordinary task, and its next due time is booked", async () => {
    site.state.bodies.set("/due", text("due"));
    const s = await addUrl("/due", { refreshEvery: 60 });
    const hits = site.state.hits.get("/due")!;
    await f.t.services.db.atomically((tx) =>
      tx.run(sql`UPDATE source_fetches SET next_check_at = '2000-01-01T00:00:00.000Z' WHERE document_id = ${s.id}`),
    );
    expect(await f.t.services.refresh.tick()).toBe(1);
    await waitFor("the scheduled fetch", async () => (site.state.hits.get("/due")! > hits ? true : undefined));
    const after = await f.c.settled(f.pid, s.id);
    const next = Date.parse(after.nextCheckAt as string) - Date.now();
    expect(next).toBeGreaterThan(50_000);
    expect(next).toBeLessThanOrEqual(66_000);
  });
});

describe("restart", () => {
  test("due times survive a restart, and overdue sources are spread instead of fetched at once", async () => {
    const dataDir = tempDir();
    const config = { ...defaultConfig(), dataDir, log: "error" as const, workers: 1, fetchAllow: ["127.0.0.1"] };
    const log = createLogger("error", () => {});
    let services = await createServices(config, log);
    let app = buildApp(services);
    const restart = async () => {
      services = await createServices(config, log);
      app = buildApp(services);
    };
    const call = async (method: string, path: string, cookie?: string, body?: unknown) => {
      const res = await app.handle(
        new Request(`http://localhost${path}`, {
          method,
          headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      );
      return { status: res.status, headers: res.headers, body: await res.json().catch(() => null) };
    };
    const signup = await call("POST", "/api/auth/signup", undefined, {
      email: "restart@example.com",
      password: "correct horse battery",
    });
    const cookie = signup.headers.get("set-cookie")!.split(";")[0]!;
    const pid = (await call("POST", "/api/rag/pipelines", cookie, { name: "r" })).body.id;
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      site.state.bodies.set(`/r${i}`, text(`r${i}`));
      const r = await call("POST", `/api/rag/pipelines/${pid}/sources`, cookie, {
        type: "url",
        url: site.url(`/r${i}`),
        refreshEvery: "1h",
      });
      expect(r.status).toBe(201);
      ids.push(r.body.id);
    }
    const list = async () =>
      (await call("GET", `/api/rag/pipelines/${pid}/sources`, cookie)).body as Record<string, unknown>[];
    await waitFor("all ready", async () => ((await list()).every((s) => s.status === "ready") ? true : undefined));
    const dueBefore = new Map((await list()).map((s) => [s.id, s.nextCheckAt]));

    // 1. A restart keeps each due time as it was.
    await closeServices(services);
    await restart();
    expect(new Map((await list()).map((s) => [s.id, s.nextCheckAt]))).toEqual(dueBefore);

    // 2. All twenty fell due while ragd was down: after the restart they are spread over the next minutes.
    await services.db.atomically((tx) =>
      tx.run(sql`UPDATE source_fetches SET next_check_at = '2000-01-01T00:00:00.000Z'`),
    );
    await closeServices(services);
    const hitsBefore = [...site.state.hits.values()].reduce((a, b) => a + b, 0);
    const started = Date.now();
    await restart();
    const due = (await list()).map((s) => Date.parse(s.nextCheckAt as string) - started).sort((a, b) => a - b);
    expect(due.length).toBe(20);
    expect(due[0]!).toBeGreaterThanOrEqual(0);
    expect(due[19]!).toBeLessThanOrEqual(10 * 60_000 + 1000);
    // Evenly spread over ten minutes: one in each 30 s slot, so any two but neighbours are 30 s apart.
    for (let i = 2; i < due.length; i++) expect(due[i]! - due[i - 2]!).toBeGreaterThan(29_000);
    expect(due.filter((d) => d < 60_000).length).toBeLessThanOrEqual(3);
    expect(await services.refresh.tick()).toBeLessThanOrEqual(1);
    await Bun.sleep(300);
    const hitsAfter = [...site.state.hits.values()].reduce((a, b) => a + b, 0);
    expect(hitsAfter - hitsBefore).toBeLessThanOrEqual(1);
    await closeServices(services);
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);
});
