/**
 * Politeness per host: one request at a time (the crawl is sequential), at least the
 * delay apart (or robots.txt's Crawl-delay, up to 10 s), and robots.txt read once
 * per origin under the fetch rules. A robots.txt that answers 4xx allows everything;
 * one that cannot be read (5xx, refused, unreachable) allows nothing, as RFC 9309 asks.
 */
import { FetchError, safeFetch } from "../fetch/index";
import type { Job } from "../job";
import { ALLOW_ALL, DISALLOW_ALL, parseRobots, type RobotsRules } from "./robots";

const MAX_CRAWL_DELAY_MS = 10_000;
const ROBOTS_MAX_BYTES = 512 * 1024;

export class HostGate {
  private readonly last = new Map<string, number>();
  private readonly robots = new Map<string, Promise<RobotsRules>>();

  constructor(
    readonly fetch: Job["fetch"],
    private readonly delayMs: number,
    private readonly signal: AbortSignal,
  ) {}

  /** True when the origin's robots.txt lets ragd fetch this URL. */
  async allowed(url: string): Promise<boolean> {
    const u = new URL(url);
    return (await this.rulesOf(u.origin)).allows(u.pathname + u.search);
  }

  /** Waits until this host may be asked again, and books the request. */
  async turn(url: string): Promise<void> {
    const u = new URL(url);
    const rules = await this.rulesOf(u.origin);
    const delay = Math.min(Math.max(this.delayMs, (rules.delaySeconds ?? 0) * 1000), MAX_CRAWL_DELAY_MS);
    const wait = (this.last.get(u.host) ?? Number.NEGATIVE_INFINITY) + delay - performance.now();
    if (wait > 0 && !this.signal.aborted) await Bun.sleep(wait);
    this.last.set(u.host, performance.now());
  }

  private rulesOf(origin: string): Promise<RobotsRules> {
    let rules = this.robots.get(origin);
    if (!rules) this.robots.set(origin, (rules = this.readRobots(origin)));
    return rules;
  }

  private async readRobots(origin: string): Promise<RobotsRules> {
    const host = new URL(origin).host;
    this.last.set(host, performance.now());
    try {
      const res = await safeFetch(`${origin}/robots.txt`, {
        ...this.fetch,
        maxBytes: Math.min(this.fetch.maxBytes, ROBOTS_MAX_BYTES),
        accept: "text/plain",
      });
      return parseRobots(new TextDecoder().decode(res.bytes), "ragd");
    } catch (err) {
      const status = err instanceof FetchError ? err.status : null;
      return status !== null && status >= 400 && status < 500 ? ALLOW_ALL : DISALLOW_ALL;
    } finally {
      this.last.set(host, performance.now());
    }
  }
}
