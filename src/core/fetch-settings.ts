/**
 * The refresh interval and crawl settings of a url/api source (docs/API.md,
 * "Refresh and crawl"): how a client writes them, the checks, and the stored form.
 */

export const MIN_REFRESH_SECONDS = 60;
export const MAX_REFRESH_SECONDS = 365 * 86_400;
export const MAX_CRAWL_DEPTH = 10;
/** A crawl is one task under the 15-minute job cap: a bound on its pages keeps it inside. */
export const MAX_CRAWL_PAGES = 1000;
const MAX_PATTERNS = 50;

export interface CrawlSettings {
  depth: number;
  maxPages: number;
  sameSite: boolean;
  include: string[];
  exclude: string[];
  sitemap: boolean;
}

export const CRAWL_DEFAULTS: CrawlSettings = {
  depth: 2,
  maxPages: 100,
  sameSite: true,
  include: [],
  exclude: [],
  sitemap: false,
};

export interface Problem {
  field: string;
  message: string;
}

const UNITS: Record<string, number> = { d: 86_400, h: 3600, m: 60, s: 1 };

/**
 * Seconds from a whole number of seconds or a duration such as "90s", "15m", "1h30m", "1d";
 * null means no schedule. Returns a problem when it is neither, or out of range.
 * @example parseRefreshEvery("1h") // { seconds: 3600 }
 */
export function parseRefreshEvery(value: unknown): { seconds: number | null } | Problem {
  const field = "refreshEvery";
  if (value === null) return { seconds: null };
  let seconds: number | null = null;
  if (typeof value === "number" && Number.isInteger(value)) seconds = value;
  else if (typeof value === "string" && /^(\d+d)?(\d+h)?(\d+m)?(\d+s)?$/.test(value.trim()) && value.trim()) {
    seconds = 0;
    for (const [, n, unit] of value.trim().matchAll(/(\d+)([dhms])/g)) seconds += Number(n) * UNITS[unit!]!;
  }
  if (seconds === null)
    return { field, message: 'must be a whole number of seconds, a duration such as "15m", "1h" or "1d", or null' };
  if (seconds < MIN_REFRESH_SECONDS || seconds > MAX_REFRESH_SECONDS)
    return { field, message: `must be between ${MIN_REFRESH_SECONDS} seconds and 365 days` };
  return { seconds };
}

/** Checks a crawl object and fills in its defaults; returns the problems instead when there are any. */
export function parseCrawl(value: unknown): CrawlSettings | Problem[] {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return [{ field: "crawl", message: "must be an object" }];
  const v = value as Record<string, unknown>;
  const problems: Problem[] = [];
  const known = new Set(Object.keys(CRAWL_DEFAULTS));
  for (const k of Object.keys(v)) if (!known.has(k)) problems.push({ field: `crawl.${k}`, message: "is not a field" });
  const int = (k: "depth" | "maxPages", min: number, max: number): number => {
    const n = v[k] ?? CRAWL_DEFAULTS[k];
    if (typeof n === "number" && Number.isInteger(n) && n >= min && n <= max) return n;
    problems.push({ field: `crawl.${k}`, message: `must be a whole number from ${min} to ${max}` });
    return CRAWL_DEFAULTS[k];
  };
  const bool = (k: "sameSite" | "sitemap"): boolean => {
    const b = v[k] ?? CRAWL_DEFAULTS[k];
    if (typeof b === "boolean") return b;
    problems.push({ field: `crawl.${k}`, message: "must be true or false" });
    return CRAWL_DEFAULTS[k];
  };
  const patterns = (k: "include" | "exclude"): string[] => {
    const list = v[k] ?? [];
    const ok =
      Array.isArray(list) &&
      list.length <= MAX_PATTERNS &&
      list.every((p) => typeof p === "string" && p.length > 0 && p.length <= 500);
    if (ok) return list as string[];
    problems.push({
      field: `crawl.${k}`,
      message: `must be an array of up to ${MAX_PATTERNS} patterns (1..500 chars)`,
    });
    return [];
  };
  const settings: CrawlSettings = {
    depth: int("depth", 0, MAX_CRAWL_DEPTH),
    maxPages: int("maxPages", 1, MAX_CRAWL_PAGES),
    sameSite: bool("sameSite"),
    include: patterns("include"),
    exclude: patterns("exclude"),
    sitemap: bool("sitemap"),
  };
  return problems.length ? problems : settings;
}

/** What a create, PATCH or upsert body asks of a source's schedule and crawl; undefined fields stay as they are. */
export interface FetchSettings {
  refreshEvery?: number | null;
  crawl?: CrawlSettings;
}

/**
 * Checks the refresh and crawl fields for a source of `type` (refreshEvery: url and api;
 * crawl: url); problems name their field after `prefix` (e.g. "documents.3.").
 */
export function readFetchSettings(
  type: string,
  b: { refreshEvery?: unknown; crawl?: unknown },
  prefix = "",
): { settings: FetchSettings; problems: Problem[] } {
  const settings: FetchSettings = {};
  const problems: Problem[] = [];
  const named = (p: Problem) => ({ field: `${prefix}${p.field}`, message: p.message });
  if (b.refreshEvery !== undefined) {
    const r = parseRefreshEvery(b.refreshEvery);
    if (type !== "url" && type !== "api" && type !== "folder" && type !== "git" && type !== "s3")
      problems.push(named({ field: "refreshEvery", message: "is for url, api, folder, s3 and git sources" }));
    else if ("field" in r) problems.push(named(r));
    else settings.refreshEvery = r.seconds;
  }
  if (b.crawl !== undefined) {
    const c = type === "url" ? parseCrawl(b.crawl) : [{ field: "crawl", message: "is for url sources" }];
    if (Array.isArray(c)) problems.push(...c.map(named));
    else settings.crawl = c;
  }
  return { settings, problems };
}

/**
 * A pattern as a test of a URL's path and query: `*` matches any run of characters
 * (slashes too), everything else itself, and the pattern spans the whole of it.
 * @example patternMatcher("/docs/*")("/docs/a/b?x=1") // true
 */
export function patternMatcher(pattern: string): (pathAndQuery: string) => boolean {
  const body = pattern
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  const re = new RegExp(`^${body}$`);
  return (s) => re.test(s);
}
