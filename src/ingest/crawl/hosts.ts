/**
 * Politeness per host: one request at a time (the crawl is sequential), the next one
 * the delay after the last answer (or robots.txt's Crawl-delay, up to 10 s), and robots.txt read once
 * per origin under the fetch rules. A robots.txt that answers 4xx allows everything;
 * one that cannot be read (5xx, refused, unreachable) allows nothing, as RFC 9309 asks.
 */
import { FetchError, safeFetch } from "../fetch/index";
import type { Job } from "../job";
import { ALLOW_ALL, DISALLOW_ALL, parseRobots, type RobotsRules } from "./robots";

const MAX_CRAWL_DELAY_MS = 10_000;
const ROBOTS_MAX_BYTES = 512 * 1024;

interface Robots {
  rules: RobotsRules;
  /** Why robots.txt could not be read, when it could not. */
  problem?: string;
}

export class HostGate {
  private readonly last = new Map<string, number>();
  private readonly robots = new Map<string, Promise<Robots>>();

  constructor(
    readonly fetch: Job["fetch"],
    private readonly delayMs: number,
    private readonly signal: AbortSignal,
    /** Puts the start URL's credentials back on a URL of its origin (run.ts). */
    readonly authed: (url: string) => string = (u) => u,
  ) {}

  /** Null when the origin's robots.txt lets ragd fetch this URL, else why not. */
  async refusal(url: string): Promise<string | null> {
    const u = new URL(url);
    const { rules, problem } = await this.rulesOf(u.origin);
    if (rules.allows(u.pathname + u.search)) return null;
    return problem ? `robots.txt could not be read: ${problem}` : "disallowed by robots.txt";
  }

  /** Notes that a request to this host has its answer: the delay counts from here. */
  release(url: string): void {
    this.last.set(new URL(url).host, performance.now());
  }

  /** Waits until this host may be asked again (the delay after its last answer), and books the request. */
  async turn(url: string): Promise<void> {
    const u = new URL(url);
    const { rules } = await this.rulesOf(u.origin);
    const delay = Math.min(Math.max(this.delayMs, (rules.delaySeconds ?? 0) * 1000), MAX_CRAWL_DELAY_MS);
    const wait = (this.last.get(u.host) ?? Number.NEGATIVE_INFINITY) + delay - performance.now();
    if (wait > 0 && !this.signal.aborted) await Bun.sleep(wait);
    this.last.set(u.host, performance.now());
  }

  private rulesOf(origin: string): Promise<Robots> {
    let rules = this.robots.get(origin);
    if (!rules) this.robots.set(origin, (rules = this.readRobots(origin)));
    return rules;
  }

  private async readRobots(origin: string): Promise<Robots> {
    const host = new URL(origin).host;
    this.last.set(host, performance.now());
    try {
      const res = await safeFetch(this.authed(`${origin}/robots.txt`), {
        ...this.fetch,
        maxBytes: Math.min(this.fetch.maxBytes, ROBOTS_MAX_BYTES),
        accept: "text/plain",
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
