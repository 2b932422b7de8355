/**
 * The small readers a crawl relies on (docs/API.md, "Refresh and crawl"): robots.txt
 * groups and rules, include/exclude patterns, links out of HTML, sitemap entries,
 * and the refresh interval's forms.
 */
import { describe, expect, test } from "bun:test";
import { parseCrawl, parseRefreshEvery, patternMatcher } from "../src/core/fetch-settings";
import { htmlLinks, metaRobots, sitemapEntries } from "../src/ingest/crawl/links";
import { parseRobots } from "../src/ingest/crawl/robots";

describe("robots.txt", () => {
  const robots = parseRobots(
    [
      "# comment",
      "User-agent: otherbot",
      "Disallow: /",
      "",
      "User-agent: *",
      "Disallow: /private",
      "Allow: /private/open",
      "Disallow: /*.pdf$",
      "Disallow: /search?",
      "Crawl-delay: 2",
    ].join("\n"),
    "ragd",
  );
  test.each([
    ["/", true],
    ["/private", false],
    ["/private/x", false],
    ["/private/open/page", true],
    ["/files/a.pdf", false],
    ["/files/a.pdf?x=1", true],
    ["/search?q=1", false],
    ["/searching", true],
  ])("* group: %s allowed: %p", (path, allowed) => {
    expect(robots.allows(path)).toBe(allowed);
  });

  test("Crawl-delay is read; a group naming ragd wins over *", () => {
    expect(robots.delaySeconds).toBe(2);
    const own = parseRobots("User-agent: *\nDisallow: /\n\nUser-agent: ragd\nDisallow: /x\n", "ragd");
    expect(own.allows("/a")).toBe(true);
    expect(own.allows("/x/y")).toBe(false);
  });

  test("Allow wins a tie; an empty Disallow allows all; no group allows all", () => {
    expect(parseRobots("User-agent: *\nDisallow: /a\nAllow: /a\n", "ragd").allows("/a")).toBe(true);
    expect(parseRobots("User-agent: *\nDisallow:\n", "ragd").allows("/anything")).toBe(true);
    expect(parseRobots("User-agent: otherbot\nDisallow: /\n", "ragd").allows("/")).toBe(true);
  });
});

describe("patterns", () => {
  test.each([
    ["/docs/*", "/docs/a/b?x=1", true],
    ["/docs/*", "/docs", false],
    ["/docs/*", "/blog/docs/a", false],
    ["*.html", "/a/b.html", true],
    ["/a.b", "/aXb", false],
    ["/p?id=*", "/p?id=7", true],
  ])("%s on %s: %p", (pattern, path, matches) => {
    expect(patternMatcher(pattern)(path)).toBe(matches);
  });
});

describe("links and sitemaps", () => {
  test("hrefs resolve against the page (or its <base>), fragments and non-http links dropped, nofollow skipped", () => {
    const html = `<a href="b.html#top">b</a> <a href='/c?x=1&amp;y=2'>c</a> <a href=d>d</a>
      <a href="mailto:x@y.z">m</a> <a href="javascript:void(0)">j</a> <a rel="nofollow" href="/secret">s</a>
      <a name="anchor">no href</a> <A HREF="https://other.example/e">e</A>`;
    expect(htmlLinks(html, "http://site.test/dir/page.html")).toEqual([
      "http://site.test/dir/b.html",
      "http://site.test/c?x=1&y=2",
      "http://site.test/dir/d",
      "https://other.example/e",
    ]);
    expect(htmlLinks(`<base href="http://site.test/root/"><a href="x">x</a>`, "http://site.test/a/b")).toEqual([
      "http://site.test/root/x",
    ]);
  });

  test.each([
    [`<meta name="robots" content="noindex, nofollow">`, true, true],
    [`<meta content='noindex' name='ROBOTS'>`, true, false],
    [`<meta name="ragd" content="nofollow">`, false, true],
    [`<meta name="robots" content="none">`, true, true],
    [`<meta name="googlebot" content="noindex">`, false, false],
    [`<meta name="description" content="noindex">`, false, false],
  ])("meta %s: noindex %p, nofollow %p", (html, noindex, nofollow) => {
    expect(metaRobots(html)).toEqual({ noindex, nofollow });
  });

  test("a urlset and a sitemap index", () => {
    const set = sitemapEntries(
      `<urlset><url><loc> http://s.test/a?x=1&amp;y=2 </loc></url><url><loc><![CDATA[http://s.test/b]]></loc></url></urlset>`,
    );
    expect(set).toEqual({ index: false, urls: ["http://s.test/a?x=1&y=2", "http://s.test/b"] });
    expect(sitemapEntries(`<sitemapindex><sitemap><loc>http://s.test/s1.xml</loc></sitemap></sitemapindex>`)).toEqual({
      index: true,
      urls: ["http://s.test/s1.xml"],
    });
  });
});

describe("settings", () => {
  test.each([
    [60, 60],
    ["90s", 90],
    ["15m", 900],
    ["1h30m", 5400],
    ["1d", 86_400],
    [null, null],
  ])("refreshEvery %p is %p seconds", (value, seconds) => {
    expect(parseRefreshEvery(value)).toEqual({ seconds });
  });

  test.each([[59], ["59s"], ["1h 30m"], ["h"], ["1w"], [-60], [1.5], ["366d"]])("refreshEvery %p is refused", (v) => {
    expect(parseRefreshEvery(v)).toHaveProperty("field", "refreshEvery");
  });

  test("crawl defaults, and every problem named", () => {
    expect(parseCrawl({})).toEqual({
      depth: 2,
      maxPages: 100,
      sameSite: true,
      include: [],
      exclude: [],
      sitemap: false,
    });
    const problems = parseCrawl({ depth: -1, maxPages: 5000, sameSite: "yes", follow: true }) as { field: string }[];
    expect(problems.map((p) => p.field).sort()).toEqual([
      "crawl.depth",
      "crawl.follow",
      "crawl.maxPages",
      "crawl.sameSite",
    ]);
  });
});
