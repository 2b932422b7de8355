/**
 * The sitemaps of a sitemap crawl (docs/API.md, "Refresh and crawl"), read one at a time
 * as the crawl needs start pages rather than all before it: a crawl with maxPages 5 reads
 * no more sitemaps than it takes to list 5 pages. Each sitemap is read once, however
 * often indexes list it (an index that lists itself ends there), and indexes are followed
 * SITEMAP_DEPTH levels down, depth first in the order they list their sitemaps. With
 * `sameSite`, an index's sitemaps on another host are skipped, as its pages would be
 * (the sitemap protocol itself lets an index list only its own site's sitemaps).
 */
import { sitemapEntries } from "./links";

/** Nested sitemap indexes are followed this deep. */
const SITEMAP_DEPTH = 3;

interface Sitemap {
  url: string;
  level: number;
}

export class Sitemaps {
  /** Sitemaps to read, the next one last. */
  private readonly stack: Sitemap[] = [];
  private readonly seen = new Set<string>();
  /** Sitemaps taken so far. */
  taken = 0;

  private readonly host: string | null;

  constructor(start: string, sameSite: boolean) {
    this.host = sameSite ? hostOf(start) : null;
    this.push(start, 0);
  }

  /** The next sitemap to read; undefined when none is left. */
  take(): Sitemap | undefined {
    const next = this.stack.pop();
    if (next) this.taken++;
    return next;
  }

  /** The page URLs a sitemap lists; the sitemaps an index lists are queued instead (each once). */
  read(sitemap: Sitemap, body: Uint8Array): string[] {
    const { index, urls } = sitemapEntries(new TextDecoder().decode(body));
    if (!index) return urls;
    if (sitemap.level < SITEMAP_DEPTH) for (const url of urls.toReversed()) this.push(url, sitemap.level + 1);
    return [];
  }

  private push(url: string, level: number): void {
    if (this.seen.has(url) || (this.host !== null && hostOf(url) !== this.host)) return;
    this.seen.add(url);
    this.stack.push({ url, level });
  }
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
}
