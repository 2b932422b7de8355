/** What a crawl job is given and what it reports (docs/API.md, "Refresh and crawl"). */
import type { CrawlSettings } from "../../core/fetch-settings";
import type { Validators } from "../fetch/index";

export interface CrawlJob {
  settings: CrawlSettings;
  /** Validators of the pages the crawl holds, by URL: a page the crawl does not expand is asked conditionally. */
  known: Record<string, Validators>;
  /** Wait between two requests to one host, in ms (robots.txt's Crawl-delay may lengthen it). */
  delayMs: number;
  /** How long the crawl may run; then it stops and keeps every page it holds. */
  budgetMs: number;
  /** A re-index builds a new generation from the pages' stored text: nothing is crawled. */
  skip?: boolean;
}

/** One page the crawl reached: its text, or 304 for a page it holds already. */
export type CrawledPageOut =
  | { url: string; title: string | null; text: string; hash: string; validators: Validators }
  | { url: string; notModified: true; validators: Validators };

export interface CrawlReport {
  /** Pages indexed or unchanged in this crawl. */
  pages: number;
  /** URLs whose page stays (reached, or failed for a moment); null keeps every page (nothing was crawled). */
  kept: string[] | null;
  /** Pages not taken, with why (robots.txt, the fetch rules, an error); the first 100. */
  skipped: { url: string; reason: string }[];
  /** Links left unvisited because maxPages was reached or time ran out. */
  leftOver: number;
  /** Time ran out: pages not reached this time are kept, not removed. */
  stoppedEarly: boolean;
}

export type CrawlEvent =
  | { type: "page"; jobId: string; page: CrawledPageOut }
  | { type: "crawled"; jobId: string; report: CrawlReport };
