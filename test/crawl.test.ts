/**
 * Crawls (docs/API.md, "Refresh and crawl") of a generated site on loopback: depth,
 * maxPages, include/exclude, robots.txt, a redirect to a refused address, a sitemap,
 * politeness, and a re-sync after pages vanish, appear and change.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DocumentsFixture } from "./support/documents";
import { type SourceJson, waitFor } from "./support/ingest";

/** A site whose pages the tests change; it records each request's path, time and overlap. */
function startSite() {
  const pages = new Map<string, string>();
  const log: { path: string; at: number }[] = [];
  const notModified: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const path = url.pathname;
      log.push({ path, at: performance.now() });
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        await Bun.sleep(2);
        if (path === "/robots.txt") return new Response("User-agent: *\nDisallow: /private\n");
        // Redirects to an address the fetch rules refuse (only 127.0.0.1 is allowed).
        if (path === "/leak") return Response.redirect(`http://127.0.0.2:${url.port}/secret`, 302);
        if (path === "/moved") return Response.redirect(`/a`, 301);
        const authorized = req.headers.get("authorization") === `Basic ${btoa("reader:s3cret")}`;
        if (path.startsWith("/auth/") && !authorized) return new Response("who are you", { status: 401 });
        const body = pages.get(path);
        if (body === undefined) return new Response("not found", { status: 404 });
        const type = path.endsWith(".xml") ? "application/xml" : "text/html";
        const etag = `"${Bun.hash(body).toString(16)}"`;
        if (req.headers.get("if-none-match") === etag)
          return (notModified.push(path), new Response(null, { status: 304 }));
        return new Response(body, { headers: { "content-type": type, etag } });
      } finally {
        inFlight--;
      }
    },
  });
  const base = `http://127.0.0.1:${server.port}`;
  return { pages, log, notModified, server, base, maxInFlight: () => maxInFlight };
}

const site = startSite();
const f = new DocumentsFixture();
const DELAY_MS = 40;

const prose = (tag: string) =>
  Array.from({ length: 8 }, (_, i) => `<p>The ${tag} page, paragraph ${i}, tells of ${tag} things.</p>`).join("");
const page = (tag: string, links: string[]) =>
  `<html><head><title>Page ${tag}</title></head><body><h1>${tag}</h1>${prose(tag)}${links
    .map((l) => `<a href="${l}">link</a>`)
    .join(" ")}</body></html>`;

function buildSite() {
  site.pages.clear();
  site.pages.set(
    "/",
    page("home", [
      "/a",
      "/b",
      "/private/p",
      "/skip/s",
      "/leak",
      "/moved",
      "/noindex",
      "mailto:x@example.com",
      `http://localhost:${site.server.port}/other-host`,
    ]),
  );
  site.pages.set("/a", page("alpha", ["/a/deep", "/"]));
  site.pages.set("/a/deep", page("deep", ["/a/deeper"]));
  site.pages.set("/a/deeper", page("deeper", []));
  site.pages.set("/b", page("beta", []));
  site.pages.set("/private/p", page("private", []));
  site.pages.set("/skip/s", page("skipped", []));
  site.pages.set("/other-host", page("other", []));
  site.pages.set(
    "/noindex",
    page("hidden", ["/via-noindex"]).replace("<head>", `<head><meta name="robots" content="noindex">`),
  );
  site.pages.set("/via-noindex", page("via", []));
}

beforeAll(async () => {
  buildSite();
  await f.open({ fetchAllow: ["127.0.0.1"], crawlDelayMs: DELAY_MS });
});
afterAll(async () => {
  await f.close();
  site.server.stop(true);
});

/** Pages of a crawl source, by path. */
async function pagesOf(crawlId: string): Promise<Map<string, SourceJson>> {
  const all = await f.c.sources(f.pid);
  return new Map(
    all.filter((s) => s.crawlSourceId === crawlId).map((s) => [new URL(s.url as string).pathname, s] as const),
  );
}

/** Waits for the crawl to end and its pages to settle; returns the crawl source. */
async function crawled(id: string, after = ""): Promise<SourceJson> {
  const source = await waitFor("the crawl to finish", async () => {
    const s = await f.c.source(f.pid, id);
    const report = s?.crawlReport as { finishedAt: string } | null;
    return s?.status === "ready" && report && report.finishedAt > after ? s : undefined;
  });
  await waitFor("the pages to settle", async () =>
    [...(await pagesOf(id)).values()].every((p) => p.status === "ready") ? true : undefined,
  );
  return source;
}

async function crawl(body: Record<string, unknown>, path = "/") {
  const r = await f.c.addSource(f.pid, { type: "url", url: `${site.base}${path}`, ...body });
  expect(r.status).toBe(201);
  return crawled(r.body.id);
}

const reasonFor = (s: SourceJson, path: string) =>
  (s.crawlReport as { skipped: { url: string; reason: string }[] }).skipped.find(
    (x) => new URL(x.url).pathname === path,
  )?.reason;

describe("a crawl", () => {
  let source: SourceJson;
  beforeAll(async () => {
    site.log.length = 0;
    source = await crawl({ name: "site", crawl: { depth: 2, exclude: ["/skip/*"] } });
  });

  test("takes the pages within depth, same host, not excluded, allowed by robots.txt", async () => {
    const pages = await pagesOf(source.id);
    expect([...pages.keys()].sort()).toEqual(["/", "/a", "/a/deep", "/b", "/via-noindex"]);
    expect(pages.get("/a")!.name).toBe("Page alpha");
    expect(reasonFor(source, "/noindex")).toContain("noindex"); // not indexed, its links followed
    expect(pages.get("/a")!.chunkCount).toBeGreaterThan(0);
    expect(site.log.some((r) => r.path === "/a/deeper")).toBe(false); // depth 3
    expect(site.log.some((r) => r.path === "/skip/s")).toBe(false); // excluded
    expect(site.log.some((r) => r.path === "/private/p")).toBe(false); // robots.txt
    expect(reasonFor(source, "/private/p")).toContain("robots.txt");
  });

  test("a redirect to a refused address is refused, the page skipped and reported", async () => {
    expect(reasonFor(source, "/leak")).toContain("refused by the fetch rules");
    const pages = await pagesOf(source.id);
    expect([...pages.values()].some((p) => (p.url as string).includes("127.0.0.2"))).toBe(false);
  });

  test("a redirect to a page already taken adds nothing; another host is not followed", async () => {
    const pages = await pagesOf(source.id);
    expect([...pages.values()].filter((p) => new URL(p.url as string).pathname === "/a").length).toBe(1);
    expect(site.log.some((r) => r.path === "/other-host")).toBe(false);
  });

  test("one request at a time, at least the delay apart", () => {
    expect(site.maxInFlight()).toBe(1);
    const times = site.log.map((r) => r.at);
    const gaps = times.slice(1).map((t, i) => [site.log[i]!.path, site.log[i + 1]!.path, t - times[i]!] as const);
    expect(gaps.filter(([, , gap]) => gap < DELAY_MS - 5)).toEqual([]);
  });

  test("the query finds a crawled page by its text, under the page's own name", async () => {
    const r = await f.t.call("POST", "/api/rag/query", {
      headers: { authorization: `Bearer ${f.key}` },
      body: { query: "alpha things", topK: 1, mode: "keyword" },
    });
    expect(r.status).toBe(200);
    expect(r.body.results[0].metadata.sourceName).toBe("Page alpha");
  });

  test("re-sync: a vanished page is removed, a new one added, a changed one re-embedded, the rest embed nothing", async () => {
    const before = await pagesOf(source.id);
    site.pages.delete("/b");
    // The home page's text stays the same: only a link's target changes.
    site.pages.set("/", site.pages.get("/")!.replace('<a href="/b">', '<a href="/c">'));
    site.pages.set("/c", page("gamma", []));
    site.pages.set("/a", page("alpha2", ["/a/deep", "/"]));
    const inputs = f.fake.stats().inputs;
    const r = await f.c.call("POST", `/api/rag/pipelines/${f.pid}/sources/${source.id}/refetch`);
    expect(r.status).toBe(202);
    const after = await crawled(source.id, (source.crawlReport as { finishedAt: string }).finishedAt);
    const pages = await pagesOf(source.id);
    expect([...pages.keys()].sort()).toEqual(["/", "/a", "/a/deep", "/c", "/via-noindex"]);
    expect(after.crawlReport).toMatchObject({ pages: 5, added: 1, changed: 1, removed: 1 });
    // "/a" changed, "/c" is new; the others are the same pages, not embedded again.
    for (const same of ["/", "/a/deep", "/via-noindex"]) {
      expect(pages.get(same)!.id).toBe(before.get(same)!.id);
      expect(pages.get(same)!.indexedAt).toBe(before.get(same)!.indexedAt);
    }
    const embedded = f.fake.stats().inputs - inputs;
    const expected = ["/a", "/c"].reduce((n, p) => n + pages.get(p)!.chunkCount, 0);
    expect(embedded).toBe(expected);
    const { chunks } = await f.t.services.vectorStore.documentChunks(f.pid, 1, pages.get("/a")!.id, 0, 1e9);
    expect(chunks.every((c) => c.text.includes("alpha2"))).toBe(true);
  });

  test("the crawl's new metadata reaches its pages at once; a page's own keys stay", async () => {
    const patch = (id: string, metadata: object) =>
      f.c.call("PATCH", `/api/rag/pipelines/${f.pid}/sources/${id}`, { metadata });
    expect((await patch(source.id, { team: "web", _access: ["group:a"] })).status).toBe(200);
    let pages = await pagesOf(source.id);
    for (const p of pages.values()) expect(p.metadata).toEqual({ team: "web", _access: ["group:a"] });
    const deep = pages.get("/a/deep")!;
    expect((await patch(deep.id, { team: "deep-team", _access: ["group:a"] })).status).toBe(200);
    expect((await patch(source.id, { team: "docs", _access: ["group:b"] })).status).toBe(200);
    pages = await pagesOf(source.id);
    for (const [path, p] of pages)
      expect(p.metadata).toEqual({ team: path === "/a/deep" ? "deep-team" : "docs", _access: ["group:b"] });
    // The chunk rows follow: a filter on the new team finds the changed page's new text.
    const hit = await waitFor("the chunks to follow", async () => {
      const r = await f.t.call("POST", "/api/rag/query", {
        headers: { authorization: `Bearer ${f.key}` },
        body: { query: "alpha2 things", topK: 1, mode: "keyword", filter: { metadata: { team: "docs" } } },
      });
      return r.body.results?.[0]?.content.includes("alpha2") ? r.body.results[0] : undefined;
    });
    expect(hit.metadata).toMatchObject({ sourceName: "Page alpha", team: "docs" });
  });

  test("deleting the crawl source deletes its pages", async () => {
    const ids = [...(await pagesOf(source.id)).values()].map((p) => p.id);
    expect((await f.c.call("DELETE", `/api/rag/pipelines/${f.pid}/sources/${source.id}`)).status).toBe(200);
    const left = (await f.c.sources(f.pid)).filter((s) => ids.includes(s.id));
    expect(left).toEqual([]);
  });
});

describe("limits and sitemaps", () => {
  test("maxPages stops the crawl and says how many links were left", async () => {
    buildSite();
    const s = await crawl({ crawl: { depth: 3, maxPages: 2 } });
    expect((await pagesOf(s.id)).size).toBe(2);
    expect((s.crawlReport as { leftOver: number }).leftOver).toBeGreaterThan(0);
  });

  test("a crawl out of time stops, says so, and removes none of the pages it did not reach", async () => {
    buildSite();
    const s = await crawl({ crawl: { depth: 2 } });
    const before = [...(await pagesOf(s.id)).keys()].sort();
    expect(before.length).toBeGreaterThan(3);
    const budget = f.t.config.crawlBudgetMs;
    f.t.config.crawlBudgetMs = 1;
    try {
      await f.c.call("POST", `/api/rag/pipelines/${f.pid}/sources/${s.id}/refetch`);
      const after = await crawled(s.id, (s.crawlReport as { finishedAt: string }).finishedAt);
      expect(after.crawlReport).toMatchObject({ pages: 1, stoppedEarly: true, removed: 0 });
      expect((after.crawlReport as { leftOver: number }).leftOver).toBeGreaterThan(0);
      expect([...(await pagesOf(s.id)).keys()].sort()).toEqual(before);
    } finally {
      f.t.config.crawlBudgetMs = budget;
    }
  });

  test("a crawl stored through the documents API: new metadata in a PUT reaches its pages at once", async () => {
    buildSite();
    const put = (metadata: object) =>
      f.put("the-site", { type: "url", url: `${site.base}/a`, crawl: { depth: 1 }, metadata });
    expect((await put({ team: "x" })).status).toBe(201);
    const s = await crawled((await f.get("the-site")).body.id);
    const teams = async () => [...(await pagesOf(s.id)).values()].map((p) => p.metadata);
    expect(await teams()).toEqual([{ team: "x" }, { team: "x" }, { team: "x" }]);
    expect((await put({ team: "y" })).status).toBe(200);
    expect(await teams()).toEqual([{ team: "y" }, { team: "y" }, { team: "y" }]);
    await crawled(s.id, (s.crawlReport as { finishedAt: string }).finishedAt);
  });

  test("include patterns keep only matching pages (the start page is always taken)", async () => {
    buildSite();
    const s = await crawl({ crawl: { depth: 3, include: ["/a", "/a/*"] } });
    expect([...(await pagesOf(s.id)).keys()].sort()).toEqual(["/", "/a", "/a/deep", "/a/deeper"]);
  });

  test("a sitemap index lists sitemaps whose pages are crawled", async () => {
    buildSite();
    const loc = (p: string) => `<url><loc>${site.base}${p}</loc></url>`;
    site.pages.set(
      "/sitemap.xml",
      `<?xml version="1.0"?><sitemapindex><sitemap><loc>${site.base}/s1.xml</loc></sitemap></sitemapindex>`,
    );
    site.pages.set("/s1.xml", `<?xml version="1.0"?><urlset>${loc("/a")}${loc("/b")}${loc("/private/p")}</urlset>`);
    const s = await crawl({ crawl: { depth: 0, sitemap: true } }, "/sitemap.xml");
    expect([...(await pagesOf(s.id)).keys()].sort()).toEqual(["/a", "/b"]);
    expect(reasonFor(s, "/private/p")).toContain("robots.txt");

    // Pages it follows no links from are asked with their ETag again: 304, nothing embedded.
    site.notModified.length = 0;
    const inputs = f.fake.stats().inputs;
    await f.c.call("POST", `/api/rag/pipelines/${f.pid}/sources/${s.id}/refetch`);
    const again = await crawled(s.id, (s.crawlReport as { finishedAt: string }).finishedAt);
    expect(site.notModified.sort()).toEqual(["/a", "/b"]);
    expect(f.fake.stats().inputs).toBe(inputs);
    expect(again.crawlReport).toMatchObject({ pages: 2, added: 0, changed: 0, removed: 0 });
    expect([...(await pagesOf(s.id)).keys()].sort()).toEqual(["/a", "/b"]);
  });

  test("a crawl that ends before its pages are embedded does not set the index's vector size", async () => {
    buildSite();
    const pid = await f.c.pipeline({ name: "dims", embeddingModel: "ollama/all-minilm" });
    await f.fake.set({ latencyMs: 1500 });
    try {
      const r = await f.c.addSource(pid, { type: "url", url: `${site.base}/b`, crawl: { depth: 0 } });
      await waitFor("the crawl and its page", async () => {
        const all = await f.c.sources(pid);
        return all.length === 2 && all.every((s) => s.status === "ready") ? true : undefined;
      });
      expect((await f.c.source(pid, r.body.id))!.chunkCount).toBe(0);
      expect((await f.c.getPipeline(pid)).embeddingDimensions).toBe(384);
    } finally {
      await f.fake.set({ latencyMs: 0 });
    }
  });

  test("credentials in the URL reach every page of its origin and no page, report or list shows them", async () => {
    buildSite();
    site.pages.set("/auth/", page("members", ["/auth/x", "/auth/missing"]));
    site.pages.set("/auth/x", page("member x", []));
    const url = `http://reader:s3cret@127.0.0.1:${site.server.port}/auth/`;
    const r = await f.c.addSource(f.pid, { type: "url", url, crawl: { depth: 1 } });
    expect(r.status).toBe(201);
    const s = await crawled(r.body.id);
    expect([...(await pagesOf(s.id)).keys()].sort()).toEqual(["/auth/", "/auth/x"]);
    expect(reasonFor(s, "/auth/missing")).toContain("404");
    expect(JSON.stringify(await f.c.sources(f.pid))).not.toContain("s3cret");
  });

  test("deleting a crawl source while it crawls leaves none of its pages behind", async () => {
    buildSite();
    const many = Array.from({ length: 30 }, (_, i) => `/many/${i}`);
    site.pages.set("/many/", page("many", many));
    for (const p of many) site.pages.set(p, page(`many ${p}`, []));
    const r = await f.c.addSource(f.pid, { type: "url", url: `${site.base}/many/`, crawl: { depth: 1 } });
    const id = r.body.id as string;
    await waitFor("a few pages", async () => ((await pagesOf(id)).size >= 3 ? true : undefined));
    expect((await f.c.call("DELETE", `/api/rag/pipelines/${f.pid}/sources/${id}`)).status).toBe(200);
    const requests = site.log.length;
    await Bun.sleep(500);
    expect(site.log.length - requests).toBeLessThanOrEqual(1); // the crawl stopped
    const left = (await f.c.sources(f.pid)).filter((s) => String(s.url).includes("/many/"));
    expect(left).toEqual([]);
  });

  test("a re-sync whose start page cannot be read fails, and keeps the pages it had", async () => {
    buildSite();
    const s = await crawl({ crawl: { depth: 1 } });
    const before = [...(await pagesOf(s.id)).keys()].sort();
    expect(before).toEqual(["/", "/a", "/b", "/skip/s"]);
    site.pages.delete("/");
    await f.c.call("POST", `/api/rag/pipelines/${f.pid}/sources/${s.id}/refetch`);
    const failed = await waitFor("the re-sync to fail", async () => {
      const x = await f.c.source(f.pid, s.id);
      return x?.status === "failed" ? x : undefined;
    });
    expect(failed.error).toContain("404");
    expect([...(await pagesOf(s.id)).keys()].sort()).toEqual(before);
  });
});
