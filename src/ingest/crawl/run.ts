/**
 * A crawl, run in a worker as one job (docs/API.md, "Refresh and crawl"): from the
 * source's URL (or its sitemap), breadth first, one request at a time with a delay
 * per host, every request under the fetch rules and robots.txt. Each page goes back
 * as a `page` event; the main thread (crawl-sync.ts) makes documents of them.
 */
import { sha256 } from "../../tools/crypto";
import { extract } from "../extract/index";
import { FetchError, safeFetch, type Validators } from "../fetch/index";
import type { Job, JobEvent } from "../job";
import { HostGate } from "./hosts";
import { htmlLinks, metaRobots, resolve, sitemapEntries } from "./links";
import { Frontier } from "./frontier";
import type { CrawlJob, CrawlReport } from "./types";

const HTML_ACCEPT = "text/html, application/xhtml+xml, application/pdf, text/plain;q=0.8, */*;q=0.5";
/** Nested sitemap indexes are followed this deep. */
const SITEMAP_DEPTH = 3;

/** Crawls and reports through `emit`; throws (failing the source) when no page could be read. */
export async function runCrawl(job: Job, crawl: CrawlJob, emit: (e: JobEvent) => void, signal: AbortSignal) {
  const report: CrawlReport = { pages: 0, kept: [], skipped: [], leftOver: 0, stoppedEarly: false };
  const deadline = performance.now() + crawl.budgetMs;
  if (crawl.skip) return emit({ type: "crawled", jobId: job.jobId, report: { ...report, kept: null } });
  const { start, authed } = credentialsOf(job.document.url!);
  const gate = new HostGate(job.fetch, crawl.delayMs, signal, authed);
  const frontier = new Frontier(crawl.settings, start);
  const c: Crawl = { job, crawl, emit, report, gate, frontier, firstError: null };
  if (crawl.settings.sitemap) {
    for (const url of await readSitemap(start, gate)) frontier.offer(url, 0);
  } else frontier.offer(start, 0, true);
  for (let next = c.frontier.take(); next && report.pages < crawl.settings.maxPages; next = c.frontier.take()) {
    if (signal.aborted) return;
    // The first page is always taken: a crawl that stops reports something.
    if (report.pages > 0 && performance.now() > deadline) {
      report.stoppedEarly = true;
      report.leftOver++; // the page just taken
      break;
    }
    await visit(c, next.url, next.depth);
  }
  // Nothing reached (the site down, robots.txt unreadable): fail rather than remove every page.
  if (report.pages === 0 && c.firstError) throw c.firstError;
  if (report.pages === 0)
    throw new FetchError(`the crawl reached no page: ${report.skipped[0]?.reason ?? "no links"}`, false);
  report.leftOver += c.frontier.size();
  emit({ type: "crawled", jobId: job.jobId, report });
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
  firstError: Error | null;
}

/** Fetches one page and reports it; queues its links while the crawl's depth allows. */
async function visit(c: Crawl, url: string, depth: number): Promise<void> {
  const { report, frontier, job } = c;
  const skip = (u: string, reason: string) => {
    if (report.skipped.length < 100) report.skipped.push({ url: u, reason });
  };
  const expand = depth < c.crawl.settings.depth;
  let got: Page;
  try {
    got = await fetchPage(url, c.gate, expand ? undefined : c.crawl.known[url], job);
  } catch (err) {
    c.firstError ??= err as Error;
    skip(url, (err as Error).message);
    // A page that failed for a moment stays; one that is gone or refused is removed.
    if (err instanceof FetchError && err.transient) report.kept!.push(url);
    return;
  }
  if (got.robots) return skip(url, got.robots);
  const final = got.finalUrl;
  if (final !== url && !frontier.admits(final)) return skip(url, `redirected to ${final}, outside the crawl's rules`);
  if (final !== url && !frontier.claim(final)) return; // a redirect to a page already taken
  if (got.text === null && !got.notModified) skip(final, got.problem ?? "no text");
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
async function fetchPage(url: string, gate: HostGate, known: Validators | undefined, job: Job): Promise<Page> {
  const validators = known ?? { etag: null, lastModified: null };
  const empty = { finalUrl: url, notModified: false, text: null, title: null, links: [], validators };
  const refusal = await gate.refusal(url);
  if (refusal) return { ...empty, robots: refusal };
  await gate.turn(url);
  // Each hop of a redirect waits its turn and asks robots.txt like a page.
  let hop = url;
  const beforeRedirect = async (next: URL, from: URL) => {
    gate.release(from.href);
    hop = next.href;
    const refusal = await gate.refusal(next.href);
    if (refusal) throw new FetchError(`redirected to ${next.href}: ${refusal}`, false);
    await gate.turn(next.href);
  };
  const res = await safeFetch(gate.authed(url), {
    ...job.fetch,
    accept: HTML_ACCEPT,
    validators: known ?? null,
    beforeRedirect,
  }).finally(() => gate.release(hop));
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

/** The page URLs a sitemap (or a sitemap index, followed a few levels down) lists. */
async function readSitemap(url: string, gate: HostGate, level = 0): Promise<string[]> {
  await gate.turn(url);
  const accept = "application/xml, text/xml;q=0.9, */*;q=0.5";
  const res = await safeFetch(gate.authed(url), { ...gate.fetch, accept }).finally(() => gate.release(url));
  const { index, urls } = sitemapEntries(new TextDecoder().decode(res.bytes));
  if (!index) return urls;
  if (level >= SITEMAP_DEPTH) return [];
  const out: string[] = [];
  for (const child of urls) {
    const resolved = resolve(child, url);
    if (resolved) out.push(...(await readSitemap(resolved, gate, level + 1).catch(() => [])));
  }
  return out;
}
