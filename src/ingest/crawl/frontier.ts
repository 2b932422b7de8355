/**
 * The pages a crawl has yet to visit, breadth first, each URL once; and the crawl's
 * rules for a link: the same host when `sameSite`, include and exclude patterns on
 * its path and query (exclude wins; no include pattern means every path).
 */
import { type CrawlSettings, patternMatcher } from "../../core/fetch-settings";

export class Frontier {
  private readonly queue: { url: string; depth: number }[] = [];
  private head = 0;
  private readonly seen = new Set<string>();
  private readonly host: string;
  private readonly include: ((s: string) => boolean)[];
  private readonly exclude: ((s: string) => boolean)[];

  constructor(
    private readonly settings: CrawlSettings,
    start: string,
  ) {
    this.host = new URL(start).hostname.toLowerCase();
    this.include = settings.include.map(patternMatcher);
    this.exclude = settings.exclude.map(patternMatcher);
  }

  /** True when the crawl's rules let it take this URL. */
  admits(url: string): boolean {
    const u = new URL(url);
    if (this.settings.sameSite && u.hostname.toLowerCase() !== this.host) return false;
    const path = u.pathname + u.search;
    if (this.exclude.some((m) => m(path))) return false;
    return this.include.length === 0 || this.include.some((m) => m(path));
  }

  /** Queues a URL not seen before that the rules admit (the start page is always taken). */
  offer(url: string, depth: number, start = false): void {
    if (this.seen.has(url) || (!start && !this.admits(url))) return;
    this.seen.add(url);
    this.queue.push({ url, depth });
  }

  /** Marks a URL reached by a redirect as taken; false when it was taken already. */
  claim(url: string): boolean {
    if (this.seen.has(url)) return false;
    this.seen.add(url);
    return true;
  }

  take(): { url: string; depth: number } | undefined {
    return this.queue[this.head++];
  }

  /** The URL `take` would give next, left in the queue. */
  peek(): { url: string; depth: number } | undefined {
    return this.queue[this.head];
  }

  /** Links queued and not visited. */
  size(): number {
    return Math.max(0, this.queue.length - this.head);
  }
}
