/**
 * Politeness per host: one request at a time (the crawl is sequential), the next one
 * the delay after the last answer (or robots.txt's Crawl-delay, up to 10 s), and robots.txt read once
 * per origin under the fetch rules. A robots.txt that answers 4xx allows everything;
 * one that cannot be read (5xx, refused, unreachable) allows nothing, as RFC 9309 asks.
 * Every request of a crawl (robots.txt, sitemaps, pages, each redirect hop) is booked
 * here, so none is made once the crawl is cancelled or has spent its request budget.
 */
import { pause } from "../../tools/pause";
import { FetchError, type SafeFetchResult, safeFetch, type Validators } from "../fetch/index";
import type { Job } from "../job-types";
import { ALLOW_ALL, DISALLOW_ALL, parseRobots, type RobotsRules } from "./robots";

const MAX_CRAWL_DELAY_MS = 10_000;
const ROBOTS_MAX_BYTES = 512 * 1024;

interface Robots {
  rules: RobotsRules;
  /** Why robots.txt could not be read, when it could not. */
  problem?: string;
}

/** Thrown instead of making a request once the crawl may make no more; the message says why. */
export class CrawlStopped extends Error {
  override name = "CrawlStopped";
}

export class HostGate {
  private readonly last = new Map<string, number>();
  private readonly robots = new Map<string, Promise<Robots>>();
  private requests = 0;

  constructor(
    readonly fetch: Job["fetch"],
    private readonly delayMs: number,
    private readonly signal: AbortSignal,
    /** Puts the start URL's credentials back on a URL of its origin (run.ts). */
    readonly authed: (url: string) => string = (u) => u,
    /** Requests the crawl may make in all (run.ts, requestBudget). */
    private readonly maxRequests = Number.POSITIVE_INFINITY,
  ) {}

  /** Why the crawl may make no further request (cancelled, its budget spent), or null while it may. */
  stopped(): string | null {
    if (this.signal.aborted) return "it was cancelled";
    if (this.requests >= this.maxRequests) return `it spent its budget of ${this.maxRequests} requests`;
    return null;
  }

  /**
   * GETs a URL as a crawl does: robots.txt asked first (nothing is fetched when it refuses:
   * `refusal` says why), the host's turn waited for, and each redirect hop asked and paced
   * the same way. Throws FetchError, or CrawlStopped.
   */
  async get(
    url: string,
    opts: { accept: string; validators?: Validators | null },
  ): Promise<SafeFetchResult | { refusal: string }> {
    const refusal = await this.refusal(url);
    if (refusal) return { refusal };
    await this.turn(url);
    let hop = url;
    const beforeRedirect = async (next: URL, from: URL) => {
      this.release(from.href);
      hop = next.href;
      const refusal = await this.refusal(next.href);
      if (refusal) throw new FetchError(`redirected to ${next.href}: ${refusal}`, false);
      await this.turn(next.href);
    };
    return safeFetch(this.authed(url), { ...this.fetch, ...opts, beforeRedirect, signal: this.signal }).finally(() =>
      this.release(hop),
    );
  }

  /** Null when the origin's robots.txt lets ragd fetch this URL, else why not. */
  private async refusal(url: string): Promise<string | null> {
    const u = new URL(url);
    const { rules, problem } = await this.rulesOf(u.origin);
    if (rules.allows(u.pathname + u.search)) return null;
    return problem ? `robots.txt could not be read: ${problem}` : "disallowed by robots.txt";
  }

  /** Notes that a request to this host has its answer: the delay counts from here. */
  private release(url: string): void {
    this.last.set(new URL(url).host, performance.now());
  }

  /** Waits until this host may be asked again (the delay after its last answer), and books the request. */
  private async turn(url: string): Promise<void> {
    const u = new URL(url);
    const { rules } = await this.rulesOf(u.origin);
    const delay = Math.min(Math.max(this.delayMs, (rules.delaySeconds ?? 0) * 1000), MAX_CRAWL_DELAY_MS);
    const wait = (this.last.get(u.host) ?? Number.NEGATIVE_INFINITY) + delay - performance.now();
    if (wait > 0) await pause(wait, this.signal);
    this.book();
    this.last.set(u.host, performance.now());
  }

  /** Counts one request; throws CrawlStopped instead when the crawl may make no more. */
  private book(): void {
    const why = this.stopped();
    if (why) throw new CrawlStopped(why);
    this.requests++;
  }

  private rulesOf(origin: string): Promise<Robots> {
    let rules = this.robots.get(origin);
    if (!rules) this.robots.set(origin, (rules = this.readRobots(origin)));
    return rules;
  }

  private async readRobots(origin: string): Promise<Robots> {
    const host = new URL(origin).host;
    this.book();
    this.last.set(host, performance.now());
    try {
      const res = await safeFetch(this.authed(`${origin}/robots.txt`), {
        ...this.fetch,
        maxBytes: Math.min(this.fetch.maxBytes, ROBOTS_MAX_BYTES),
        accept: "text/plain",
        signal: this.signal,
      });
      return { rules: parseRobots(new TextDecoder().decode(res.bytes), "ragd") };
    } catch (err) {
      const status = err instanceof FetchError ? err.status : null;
      if (status !== null && status >= 400 && status < 500) return { rules: ALLOW_ALL };
      return { rules: DISALLOW_ALL, problem: (err as Error).message };
    } finally {
      this.last.set(host, performance.now());
    }
  }
}
