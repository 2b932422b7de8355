/**
 * refreshEvery and crawl through the documents API (docs/API.md, Documents API): the
 * same checks and 400 bodies as the sources API, a schedule the refresh scheduler
 * follows, an upsert that changes only the schedule embeds nothing, and a crawl whose
 * pages become sources of the pipeline.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { DocumentsFixture } from "./support/documents";
import { waitFor } from "./support/ingest";

/** A site on loopback whose pages the tests set; it counts the requests per path. */
function startSite() {
  const pages = new Map<string, { body: string; type: string }>();
  const hits = new Map<string, number>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      if (path === "/robots.txt") return new Response("User-agent: *\nAllow: /\n");
      const page = pages.get(path);
      if (!page) return new Response("not found", { status: 404 });
      return new Response(page.body, { headers: { "content-type": page.type } });
    },
  });
  const url = (path: string) => `http://127.0.0.1:${server.port}${path}`;
  return { pages, hits, server, url };
}

const site = startSite();
const f = new DocumentsFixture();
const text = (tag: string) =>
  Array.from({ length: 12 }, (_, i) => `Paragraph ${i} of the ${tag} page says something.`).join(" ");
const html = (tag: string, links: string[]) =>
  `<html><head><title>Page ${tag}</title></head><body><p>${text(tag)}</p>${links
    .map((l) => `<a href="${l}">link</a>`)
    .join(" ")}</body></html>`;
const plain = (tag: string) => ({ body: text(tag), type: "text/plain" });

beforeAll(async () => {
  await f.open({ fetchAllow: ["127.0.0.1"], crawlDelayMs: 10 });
});
afterAll(async () => {
  await f.close();
  site.server.stop(true);
});

/** Makes the document's next check due now and runs one scheduler tick. */
async function makeDue(documentId: string): Promise<number> {
  await f.t.services.db.atomically((tx) =>
    tx.run(sql`UPDATE source_fetches SET next_check_at = '2000-01-01T00:00:00.000Z' WHERE document_id = ${documentId}`),
  );
  return f.t.services.refresh.tick();
}

describe("checks", () => {
  test.each([
    ["30 seconds", { type: "url", refreshEvery: 30 }, "refreshEvery", "between 60 seconds and 365 days"],
    ["an unknown unit", { type: "url", refreshEvery: "5x" }, "refreshEvery", "a duration"],
    [
      "a text document",
      { type: "text", content: "x", refreshEvery: 3600 },
      "refreshEvery",
      "url, api, folder, s3 and git",
    ],
    ["crawl on an api document", { type: "api", crawl: { depth: 1 } }, "crawl", "is for url sources"],
    ["a crawl too deep", { type: "url", crawl: { depth: 11 } }, "crawl.depth", "from 0 to 10"],
    ["crawl not an object", { type: "url", crawl: "yes" }, "crawl", "must be an object"],
  ])("%s is 400 naming the field, and stores nothing", async (_, fields, field, words) => {
    const body = fields.type === "text" ? fields : { url: site.url("/x"), ...fields };
    const r = await f.put("refused", body);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("invalid_request");
    expect(r.body.error.message).toStartWith(`${field}: `);
    expect(r.body.error.message).toContain(words);
    expect(r.body.error.details[0].field).toBe(field);
    expect((await f.get("refused")).status).toBe(404);
  });

  test("a batch names the item's field and stores the valid items", async () => {
    site.pages.set("/batch-ok", plain("batch"));
    const r = await f.t.call("POST", "/api/rag/documents/batch", {
      headers: f.auth(),
      body: {
        documents: [
          { externalId: "batch-ok", type: "url", url: site.url("/batch-ok"), refreshEvery: "2h" },
          { externalId: "batch-bad", type: "url", url: site.url("/x"), refreshEvery: 10 },
        ],
      },
    });
    expect(r.status).toBe(200);
    const [ok, bad] = r.body.results;
    expect(ok.status).toBe("created");
    expect(ok.source.refreshEvery).toBe(7200);
    expect(ok.source.nextCheckAt).toBeTruthy();
    expect(bad.status).toBe("error");
    expect(bad.error.details[0].field).toBe("documents.1.refreshEvery");
    expect((await f.get("batch-bad")).status).toBe(404);
    // The batch's new documents are on the schedule too.
    await f.settled("batch-ok");
    const hits = site.hits.get("/batch-ok")!;
    expect(await makeDue(ok.source.id)).toBe(1);
    await waitFor("the scheduled fetch", async () => (site.hits.get("/batch-ok")! > hits ? true : undefined));
  });
});

describe("schedule", () => {
  test("a document with refreshEvery is fetched again when due, and its next check is booked", async () => {
    site.pages.set("/due", plain("due"));
    const r = await f.put("due", { type: "url", url: site.url("/due"), refreshEvery: "1h30m" });
    expect(r.status).toBe(201);
    expect(r.body.source.refreshEvery).toBe(5400);
    const doc = await f.settled("due");
    expect(doc.status).toBe("ready");
    expect(doc.refreshEvery).toBe(5400);
    const listed = await f.t.call("GET", "/api/rag/documents", { headers: f.auth() });
    expect(listed.body.documents.find((d: { externalId: string }) => d.externalId === "due").refreshEvery).toBe(5400);

    site.pages.set("/due", plain("changed"));
    const hits = site.hits.get("/due")!;
    expect(await makeDue(doc.id)).toBe(1);
    await waitFor("the scheduled fetch", async () => (site.hits.get("/due")! > hits ? true : undefined));
    const after = await waitFor("the new text to be indexed", async () => {
      const d = (await f.get("due")).body;
      return d.status === "ready" && d.lastChangedAt !== doc.lastChangedAt ? d : undefined;
    });
    const next = Date.parse(after.nextCheckAt) - Date.now();
    expect(next).toBeGreaterThan(5000 * 1000);
    expect(next).toBeLessThanOrEqual(5400 * 1100);
    expect(await f.contents()).toContainEqual(expect.stringContaining("changed page"));
  });

  test("an upsert that changes only refreshEvery embeds nothing; omitted keeps it, null removes it", async () => {
    site.pages.set("/same", plain("same"));
    expect((await f.put("same", { type: "url", url: site.url("/same") })).status).toBe(201);
    const before = await f.settled("same");
    expect(before.refreshEvery).toBeNull();
    const inputs = f.fake.stats().inputs;

    const r = await f.put("same", { type: "url", url: site.url("/same"), refreshEvery: 3600 });
    expect(r.status).toBe(200);
    const scheduled = await f.settled("same");
    expect(scheduled.refreshEvery).toBe(3600);
    expect(scheduled.nextCheckAt).toBeTruthy();
    expect(scheduled.chunkCount).toBe(before.chunkCount);
    expect(scheduled.lastChangedAt).toBe(before.lastChangedAt);
    expect(f.fake.stats().inputs).toBe(inputs);

    expect((await f.put("same", { type: "url", url: site.url("/same") })).body.source.refreshEvery).toBe(3600);
    const cleared = await f.put("same", { type: "url", url: site.url("/same"), refreshEvery: null });
    expect([cleared.body.source.refreshEvery, cleared.body.source.nextCheckAt]).toEqual([null, null]);
    await f.settled("same");
    expect(f.fake.stats().inputs).toBe(inputs);
  });
});

describe("crawl", () => {
  test("a crawl through the documents API makes a source of each page", async () => {
    site.pages.set("/site/", { body: html("home", ["/site/a", "/site/b"]), type: "text/html" });
    site.pages.set("/site/a", { body: html("alpha", []), type: "text/html" });
    site.pages.set("/site/b", { body: html("beta", []), type: "text/html" });
    const r = await f.put("wiki", { type: "url", url: site.url("/site/"), crawl: { depth: 1, include: ["/site/*"] } });
    expect(r.status).toBe(201);
    expect(r.body.source.crawl).toMatchObject({ depth: 1, include: ["/site/*"], maxPages: 100 });
    const crawlSource = await waitFor("the crawl to finish", async () => {
      const d = (await f.get("wiki")).body;
      return d.status === "ready" && d.crawlReport ? d : undefined;
    });
    const pages = await waitFor("the pages to be ready", async () => {
      const all = await f.c.sources(f.pid);
      const mine = all.filter((s) => s.crawlSourceId === crawlSource.id);
      return mine.length === 3 && mine.every((s) => s.status === "ready") ? mine : undefined;
    });
    expect(pages.map((p) => new URL(p.url as string).pathname).sort()).toEqual(["/site/", "/site/a", "/site/b"]);
    expect(await f.contents()).toContainEqual(expect.stringContaining("beta page"));
  });

  test("an indexed single page does not become a crawl, nor a crawl another type", async () => {
    site.pages.set("/single", plain("single"));
    expect((await f.put("single", { type: "url", url: site.url("/single") })).status).toBe(201);
    await f.settled("single");
    const r = await f.put("single", { type: "url", url: site.url("/single"), crawl: { depth: 1 } });
    expect(r.status).toBe(400);
    expect(r.body.error.details).toEqual([
      { field: "crawl", message: "cannot turn an indexed single-page source into a crawl; delete it first" },
    ]);
    const t = await f.put("wiki", { type: "text", content: "no longer a crawl" });
    expect(t.status).toBe(400);
    expect(t.body.error.details[0].field).toBe("type");
    expect((await f.get("wiki")).body.crawl).toBeDefined();
  });
});

test("the OpenAPI document describes the upsert body with refreshEvery and crawl", async () => {
  const spec = (await f.t.call("GET", "/docs/openapi.json")).body;
  const body = spec.paths["/api/rag/documents/{externalId}"].put.requestBody.content;
  expect(Object.keys(body["application/json"].schema.properties).sort()).toEqual(
    ["content", "crawl", "metadata", "name", "refreshEvery", "type", "url"].sort(),
  );
  expect(body["multipart/form-data"].schema.required).toEqual(["file"]);
  expect(JSON.stringify(spec.paths["/api/rag/documents/batch"])).toContain("refreshEvery");
});
