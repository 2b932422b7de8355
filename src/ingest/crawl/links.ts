/** Links out of an HTML page and page addresses out of a sitemap, as absolute http(s) URLs without fragments. */

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", "#38": "&", "#39": "'" };
const decode = (s: string) => s.replace(/&(amp|lt|gt|quot|apos|#38|#39);/g, (_, e: string) => ENTITIES[e]!);

/** The page's `<a href>` targets (rel=nofollow left out), resolved against `base` (or the page's `<base href>`). */
export function htmlLinks(html: string, pageUrl: string): string[] {
  const baseTag = /<base\b[^>]*\bhref\s*=\s*(?:"([^"]*)"|'([^']*)')/i.exec(html);
  const base = resolve(decode(baseTag?.[1] ?? baseTag?.[2] ?? ""), pageUrl) ?? pageUrl;
  const out: string[] = [];
  for (const m of html.matchAll(/<a\b([^>]*)>/gi)) {
    const attrs = m[1]!;
    if (/\brel\s*=\s*["']?[^"'>]*\bnofollow\b/i.test(attrs)) continue;
    const href = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i.exec(attrs);
    const target = href && resolve(decode(href[1] ?? href[2] ?? href[3] ?? ""), base);
    if (target) out.push(target);
  }
  return out;
}

/** A sitemap's `<loc>` entries, and whether it is a sitemap index (its entries are sitemaps). */
export function sitemapEntries(xml: string): { index: boolean; urls: string[] } {
  const index = /<sitemapindex[\s>]/i.test(xml);
  const urls: string[] = [];
  for (const m of xml.matchAll(/<loc>\s*(?:<!\[CDATA\[)?([^<\]]*?)(?:\]\]>)?\s*<\/loc>/gi)) {
    const url = resolve(decode(m[1]!.trim()), undefined);
    if (url) urls.push(url);
  }
  return { index, urls };
}

/** An absolute http(s) URL without its fragment; null for anything else (mailto:, javascript:, bad syntax). */
export function resolve(href: string, base: string | undefined): string | null {
  if (!href) return null;
  try {
    const u = new URL(href, base);
    if (u.protocol !== "http:" && u.protocol !== "https:") return null;
    u.hash = "";
    return u.href;
  } catch {
    return null;
  }
}

/** What a page's `<meta name="robots">` (or `name="ragd"`) asks: not to be indexed, its links not followed. */
export function metaRobots(html: string): { noindex: boolean; nofollow: boolean } {
  let noindex = false;
  let nofollow = false;
  for (const m of html.matchAll(/<meta\b[^>]*>/gi)) {
    const tag = m[0];
    if (!/\bname\s*=\s*["']?(robots|ragd)\b/i.test(tag)) continue;
    const content = /\bcontent\s*=\s*(?:"([^"]*)"|'([^']*)')/i.exec(tag);
    const words = (content?.[1] ?? content?.[2] ?? "").toLowerCase();
    if (/\b(noindex|none)\b/.test(words)) noindex = true;
    if (/\b(nofollow|none)\b/.test(words)) nofollow = true;
  }
  return { noindex, nofollow };
}
