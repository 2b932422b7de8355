/**
 * A crawl, run in a worker as one job (docs/API.md, "Refresh and crawl"): from the
 * source's URL (or its sitemap), breadth first, one request at a time with a delay
 * per host, every request under the fetch rules and robots.txt. Each page goes back
 * as a `page` event; the main thread (sync/crawl-sync.ts) makes documents of them.
 */
import { sha256 } from "../../tools/crypto";
import { extract } from "../extract/index";
import { FetchError, type Validators } from "../fetch/index";
import type { Job, JobEvent } from "../job-types";
import { CrawlStopped, HostGate } from "./hosts";
import { htmlLinks, metaRobots } from "./links";
import { Frontier } from "./frontier";
import { Sitemaps } from "./sitemaps";
import type { CrawlJob, CrawlReport } from "./types";

const HTML_ACCEPT = "text/html, application/xhtml+xml, application/pdf, text/plain;q=0.8, */*;q=0.5";
const SITEMAP_ACCEPT = "application/xml, text/xml;q=0.9, */*;q=0.5";

/**
 * Requests a crawl may make in all: robots.txt, sitemaps, pages and redirect hops each
 * count one. Room for a redirect and a failed link per page, and for a few sitemaps.
 */
export const requestBudget = (maxPages: number) => 3 * maxPages + 20;

/** Crawls and reports through `emit`; throws (failing the source) when no page could be read. */
export async function runCrawl(job: Job, crawl: CrawlJob, emit: (e: JobEvent) => void, signal: AbortSignal) {
  const report: CrawlReport = { pages: 0, kept: [], skipped: [], leftOver: 0, stoppedEarly: false };
  if (crawl.skip) return emit({ type: "crawled", jobId: job.jobId, report: { ...report, kept: null } });
  const { start, authed } = credentialsOf(job.document.url!);
  const { sitemap, maxPages, sameSite } = crawl.settings;
  const gate = new HostGate(job.fetch, crawl.delayMs, signal, authed, requestBudget(maxPages));
  const frontier = new Frontier(crawl.settings, start);
  const sitemaps = sitemap ? new Sitemaps(start, sameSite) : null;
  const deadline = performance.now() + crawl.budgetMs;
  const c: Crawl = { job, crawl, emit, report, gate, frontier, sitemaps, deadline, firstError: null, stopped: null };
  if (!sitemaps) frontier.offer(start, 0, true);
  try {
    await walk(c);
  } catch (err) {
    if (!(err instanceof CrawlStopped)) throw err;
    // Stopped short of its end: the pages not reached this time stay.
    report.stoppedEarly = true;
    c.stopped = err.message;
  }
  if (signal.aborted) return;
  // Nothing reached (the site down, robots.txt unreadable): fail rather than remove every page.
  if (report.pages === 0 && c.firstError) throw c.firstError;
  if (report.pages === 0)
    throw new FetchError(`the crawl reached no page: ${c.stopped ?? report.skipped[0]?.reason ?? "no links"}`, false);
  report.leftOver += c.frontier.size();
  emit({ type: "crawled", jobId: job.jobId, report });
}

/** Visits pages breadth first until maxPages, the frontier's end, or the time budget; throws CrawlStopped. */
async function walk(c: Crawl): Promise<void> {
  const { report } = c;
  while (report.pages < c.crawl.settings.maxPages) {
    const why = c.gate.stopped();
    if (why) throw new CrawlStopped(why);
    const next = await nextPage(c);
    if (!next) return;
    // The first page is always taken: a crawl that stops reports something.
    if (report.pages > 0 && performance.now() > c.deadline) {
      report.stoppedEarly = true;
      report.leftOver++; // the page just taken
      return;
    }
    await visit(c, next.url, next.depth);
  }
}

/**
 * The next page to visit. A sitemap's pages are the start pages (depth 0): while sitemaps
 * are left and no start page is queued, the next sitemap is read first.
 */
async function nextPage(c: Crawl): Promise<{ url: string; depth: number } | undefined> {
  while (c.sitemaps && c.frontier.peek()?.depth !== 0) {
    const sitemap = c.sitemaps.take();
    if (!sitemap) break;
    // The first sitemap is always read, as the first page is always taken.
    if (c.sitemaps.taken > 1 && performance.now() > c.deadline) throw new CrawlStopped("it ran out of time");
    await readSitemap(c, c.sitemaps, sitemap);
  }
  return c.frontier.take();
}

/** Reads one sitemap, as the crawl's request, and queues the pages it lists. */
async function readSitemap(c: Crawl, sitemaps: Sitemaps, sitemap: { url: string; level: number }): Promise<void> {
  try {
    const res = await c.gate.get(sitemap.url, { accept: SITEMAP_ACCEPT });
    if ("refusal" in res) return skip(c, sitemap.url, res.refusal);
    for (const url of sitemaps.read(sitemap, res.bytes)) c.frontier.offer(url, 0);
  } catch (err) {
    if (err instanceof CrawlStopped) throw err;
    c.firstError ??= err as Error;
    skip(c, sitemap.url, (err as Error).message);
  }
}

/** Lists a URL not taken, with why; the report keeps the first 100. */
function skip(c: Crawl, url: string, reason: string): void {
  if (c.report.skipped.length < 100) c.report.skipped.push({ url, reason });
}

/**
 * The start URL without its `user:password@` (pages, reports and messages never carry
 * them), and a function that puts them back on URLs of the start URL's own origin, as
 * the fetcher sends credentials only to the origin they were given for.
 */
function credentialsOf(url: string): { start: string; authed: (u: string) => string } {
  const u = new URL(url);
  const { username, password, origin } = u;
  u.username = "";
  u.password = "";
  if (!username && !password) return { start: u.href, authed: (x) => x };
  const authed = (x: string) => {
    const target = new URL(x);
    if (target.origin !== origin) return x;
    target.username = username;
    target.password = password;
    return target.href;
  };
  return { start: u.href, authed };
}

interface Crawl {
  job: Job;
  crawl: CrawlJob;
  emit: (e: JobEvent) => void;
  report: CrawlReport;
  gate: HostGate;
  frontier: Frontier;
  /** A sitemap crawl's sitemaps; null for a crawl from a page. */
  sitemaps: Sitemaps | null;
  /** When the crawl's time budget ends (performance.now()). */
  deadline: number;
  firstError: Error | null;
  /** Why the crawl stopped short (CrawlStopped), when it did. */
  stopped: string | null;
}

/** Fetches one page and reports it; queues its links while the crawl's depth allows. */
async function visit(c: Crawl, url: string, depth: number): Promise<void> {
  const { report, frontier, job } = c;
  const expand = depth < c.crawl.settings.depth;
  let got: Page;
  try {
    got = await fetchPage(url, c.gate, expand ? undefined : c.crawl.known[url]);
  } catch (err) {
    if (err instanceof CrawlStopped) throw err;
    c.firstError ??= err as Error;
    skip(c, url, (err as Error).message);
    // A page that failed for a moment stays; one that is gone or refused is removed.
    if (err instanceof FetchError && err.transient) report.kept!.push(url);
    return;
  }
  if (got.robots) return skip(c, url, got.robots);
  const final = got.finalUrl;
  if (final !== url && !frontier.admits(final))
    return skip(c, url, `redirected to ${final}, outside the crawl's rules`);
  if (final !== url && !frontier.claim(final)) return; // a redirect to a page already taken
  if (got.text === null && !got.notModified) skip(c, final, got.problem ?? "no text");
  else {
    report.pages++;
    report.kept!.push(final);
    const page = got.notModified
      ? { url: final, notModified: true as const, validators: got.validators }
      : { url: final, title: got.title, text: got.text!, hash: sha256(got.text!), validators: got.validators };
    c.emit({ type: "page", jobId: job.jobId, page });
  }
  if (expand) for (const link of got.links) frontier.offer(link, depth + 1);
}

interface Page {
  finalUrl: string;
  notModified: boolean;
  text: string | null;
  title: string | null;
  links: string[];
  validators: Validators;
  /** Why the page could not become text, when it could not. */
  problem?: string;
  /** Set when robots.txt refuses the page (nothing was fetched). */
  robots?: string;
}

/** One page under robots.txt and the host's pace; a page the crawl holds is asked conditionally. */
async function fetchPage(url: string, gate: HostGate, known: Validators | undefined): Promise<Page> {
  const validators = known ?? { etag: null, lastModified: null };
  const empty = { finalUrl: url, notModified: false, text: null, title: null, links: [], validators };
  const res = await gate.get(url, { accept: HTML_ACCEPT, validators: known ?? null });
  if ("refusal" in res) return { ...empty, robots: res.refusal };
  if (res.notModified) return { ...empty, finalUrl: res.finalUrl, notModified: true, validators: res.validators };
  const html = /html/i.test(res.contentType) ? new TextDecoder().decode(res.bytes) : null;
  const meta = html !== null ? metaRobots(html) : { noindex: false, nofollow: false };
  const links = html !== null && !meta.nofollow ? htmlLinks(html, res.finalUrl) : [];
  if (meta.noindex)
    return {
      ...empty,
      finalUrl: res.finalUrl,
      links,
      validators: res.validators,
      problem: "the page asks not to be indexed (meta robots noindex)",
    };
  try {
    const extracted = await extract(res.bytes, { contentType: res.contentType, url: res.finalUrl });
    const title = extracted.title ?? null;
    return { ...empty, finalUrl: res.finalUrl, text: extracted.text, title, links, validators: res.validators };
  } catch (err) {
    return { ...empty, finalUrl: res.finalUrl, links, validators: res.validators, problem: (err as Error).message };
  }
}
