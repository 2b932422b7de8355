/**
 * Sitemap crawls (docs/API.md, "Refresh and crawl") of a site on loopback whose sitemap
 * index never ends: each index lists itself, ten new indexes and one under a path that
 * robots.txt disallows. The crawl's request budget, its time budget, the delay, robots.txt
 * and cancellation must hold for sitemaps as they do for pages.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Sitemaps } from "../src/ingest/crawl/sitemaps";
import { DocumentsFixture } from "./support/documents";
import { type SourceJson, waitFor } from "./support/ingest";

const DELAY_MS = 40;

/** The endless site; it records each request's path and time. */
function startSite() {
  const log: { path: string; at: number }[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const { pathname: path, origin } = new URL(req.url);
      log.push({ path, at: performance.now() });
      if (path === "/robots.txt") return new Response("User-agent: *\nDisallow: /private\n");
      const m = /^\/(?:private\/)?idx\/(\d+)\.xml$/.exec(path);
      if (!m) return new Response("not found", { status: 404 });
      const n = Number(m[1]);
      const children = Array.from({ length: 10 }, (_, k) => `/idx/${n * 10 + k + 1}.xml`);
      const locs = [path, ...children, `/private/idx/${n}.xml`];
      const entries = locs.map((l) => `<sitemap><loc>${origin}${l}</loc></sitemap>`);
      const xml = `<?xml version="1.0"?><sitemapindex>${entries.join("")}</sitemapindex>`;
      return new Response(xml, { headers: { "content-type": "application/xml" } });
    },
  });
  return { log, server, base: `http://127.0.0.1:${server.port}` };
}

const site = startSite();
const f = new DocumentsFixture();

beforeAll(async () => {
  await f.open({ fetchAllow: ["127.0.0.1"], crawlDelayMs: DELAY_MS });
});
afterAll(async () => {
  await f.close();
  site.server.stop(true);
});

async function startCrawl(maxPages: number): Promise<string> {
  site.log.length = 0;
  const url = `${site.base}/idx/0.xml`;
  const r = await f.c.addSource(f.pid, { type: "url", url, crawl: { sitemap: true, depth: 0, maxPages } });
  expect(r.status).toBe(201);
  return r.body.id as string;
}

const failed = (id: string) =>
  waitFor("the crawl to fail", async () => {
    const s = await f.c.source(f.pid, id);
    return s?.status === "failed" ? s : undefined;
  });

/** Waits until the site has had no request for ten delays; returns how many it had. */
async function quiet(): Promise<number> {
  let seen = -1;
  let since = 0;
  await waitFor("the site to have no more requests", () => {
    if (site.log.length !== seen) [seen, since] = [site.log.length, performance.now()];
    return performance.now() - since > 10 * DELAY_MS;
  });
  return site.log.length;
}

describe("an endless sitemap index", () => {
  let source: SourceJson;
  beforeAll(async () => {
    source = await failed(await startCrawl(5));
  });

  test("stops at the request budget: 3 per page of maxPages, plus 20", async () => {
    expect(source.error).toBe("the crawl reached no page: it spent its budget of 35 requests");
    expect(site.log.length).toBe(35);
    expect(await quiet()).toBe(35);
  });

  test("fetches each sitemap once, and none that robots.txt disallows", () => {
    const paths = site.log.map((r) => r.path);
    expect(new Set(paths).size).toBe(paths.length);
    expect(paths.filter((p) => p.startsWith("/private"))).toEqual([]);
  });

  test("waits the delay between two sitemaps", () => {
    const gaps = site.log.slice(1).map((r, i) => r.at - site.log[i]!.at);
    expect(gaps.filter((g) => g < DELAY_MS - 5)).toEqual([]);
  });
});

test("a sitemap crawl out of time stops after its first sitemap", async () => {
  const budget = f.t.config.crawlBudgetMs;
  f.t.config.crawlBudgetMs = 1;
  try {
    const s = await failed(await startCrawl(1000));
    expect(s.error).toBe("the crawl reached no page: it ran out of time");
    expect(site.log.map((r) => r.path)).toEqual(["/robots.txt", "/idx/0.xml"]);
  } finally {
    f.t.config.crawlBudgetMs = budget;
  }
});

test("deleting a sitemap crawl's source stops its requests", async () => {
  const id = await startCrawl(1000);
  await waitFor("a few sitemaps read", () => site.log.length >= 5);
  expect((await f.c.call("DELETE", `/api/rag/pipelines/${f.pid}/sources/${id}`)).status).toBe(200);
  const atDelete = site.log.length;
  // One request may have been under way when the crawl was cancelled.
  expect((await quiet()) - atDelete).toBeLessThanOrEqual(1);
});

test("with sameSite, an index's sitemaps on another host are not read", () => {
  const index = `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
    <sitemap><loc>http://other.test/s.xml</loc></sitemap><sitemap><loc>http://site.test/s2.xml</loc></sitemap>
  </sitemapindex>`;
  const read = (sameSite: boolean) => {
    const maps = new Sitemaps("http://site.test/sitemap.xml", sameSite);
    maps.read(maps.take()!, new TextEncoder().encode(index));
    const next: string[] = [];
    for (let m = maps.take(); m; m = maps.take()) next.push(m.url);
    return next;
  };
  expect(read(true)).toEqual(["http://site.test/s2.xml"]);
  expect(read(false)).toEqual(["http://other.test/s.xml", "http://site.test/s2.xml"]);
});
