/**
 * EPUB 2 and 3: the chapters in spine (reading) order, each headed `# <title>` with the
 * title from the table of contents (EPUB 3 nav, or the EPUB 2 NCX), else the chapter's own
 * `<title>`; the book's title from its metadata (docs/API.md, "What text is indexed").
 */
import { ExtractionError } from "./errors";
import { htmlBodyText } from "./html";
import {
  attr,
  childrenNamed,
  descendantsNamed,
  firstNamed,
  inflatePart,
  readXml,
  requireXml,
  resolvePart,
} from "./xml";
import type { ZipDirectory } from "./zip";

const XHTML = /^(application\/xhtml\+xml|text\/html)$/i;

interface Item {
  href: string;
  type: string;
  properties: string;
}

/** Extracts the chapters of an EPUB whose zip directory has passed the limits. */
export function extractEpub(bytes: Uint8Array, zip: ZipDirectory): { text: string; title?: string } {
  const container = requireXml(bytes, zip, "META-INF/container.xml", "epub");
  const opfPath = attr(firstNamed(container, "rootfile") ?? container, "full-path");
  if (!opfPath) throw new ExtractionError("epub container.xml names no package document");
  const opf = requireXml(bytes, zip, resolvePart("", opfPath), "epub");
  const items = new Map<string, Item>();
  for (const el of descendantsNamed(opf, "item")) {
    const id = attr(el, "id");
    const href = attr(el, "href");
    if (id && href)
      items.set(id, {
        href: resolvePart(opfPath, href),
        type: attr(el, "media-type") ?? "",
        properties: attr(el, "properties") ?? "",
      });
  }
  refuseDrm(bytes, zip, items);
  const titles = tocTitles(bytes, zip, opf, items);
  const spine = descendantsNamed(opf, "itemref")
    .map((ref) => items.get(attr(ref, "idref") ?? ""))
    .filter((item): item is Item => !!item && XHTML.test(item.type));
  if (spine.length === 0) throw new ExtractionError("epub has no chapters in its spine");
  const chapters = spine.map((item) => chapterText(bytes, zip, item, titles.get(item.href)));
  const title = firstNamed(opf, "title")?.textContent?.replace(/\s+/g, " ").trim() || undefined;
  return { text: chapters.filter(Boolean).join("\n\n"), title };
}

function chapterText(bytes: Uint8Array, zip: ZipDirectory, item: Item, tocTitle?: string): string {
  const entry = zip.get(item.href);
  if (!entry) throw new ExtractionError(`epub chapter ${item.href} is missing`);
  const { text, title } = htmlBodyText(inflatePart(bytes, entry));
  const heading = tocTitle ?? title;
  if (!text) return heading ? `# ${heading}` : "";
  // A chapter that opens with its own title says it once.
  const body = heading && text.startsWith(heading) ? text.slice(heading.length).trim() : text;
  return heading ? `# ${heading}${body ? `\n\n${body}` : ""}` : text;
}

/** Chapter titles by part name, from the EPUB 3 nav document or the EPUB 2 NCX; the first entry per file wins. */
function tocTitles(bytes: Uint8Array, zip: ZipDirectory, opf: Element, items: Map<string, Item>): Map<string, string> {
  const titles = new Map<string, string>();
  const add = (from: string, href: string | undefined, label: string | null | undefined) => {
    const text = label?.replace(/\s+/g, " ").trim();
    if (!href || !text) return;
    const part = resolvePart(from, href.split("#")[0]!);
    if (!titles.has(part)) titles.set(part, text);
  };
  const nav = [...items.values()].find((i) => /(^|\s)nav(\s|$)/.test(i.properties));
  const navDoc = nav ? readXml(bytes, zip, nav.href) : undefined;
  const toc = navDoc ? descendantsNamed(navDoc, "nav").find((n) => attr(n, "type") === "toc") : undefined;
  if (nav && toc) for (const a of descendantsNamed(toc, "a")) add(nav.href, attr(a, "href"), a.textContent);
  if (titles.size > 0) return titles;
  const spine = firstNamed(opf, "spine");
  const ncx =
    items.get((spine && attr(spine, "toc")) ?? "") ??
    [...items.values()].find((i) => i.type === "application/x-dtbncx+xml");
  const ncxDoc = ncx ? readXml(bytes, zip, ncx.href) : undefined;
  for (const point of ncxDoc ? descendantsNamed(ncxDoc, "navPoint") : []) {
    const label = childrenNamed(point, "navLabel")[0];
    const content = childrenNamed(point, "content")[0];
    add(ncx!.href, content && attr(content, "src"), label && firstNamed(label, "text")?.textContent);
  }
  return titles;
}

/** Font obfuscation is common and harmless; encrypted chapters mean DRM, which cannot be read. */
function refuseDrm(bytes: Uint8Array, zip: ZipDirectory, items: Map<string, Item>): void {
  const enc = readXml(bytes, zip, "META-INF/encryption.xml");
  if (!enc) return;
  const chapters = new Set([...items.values()].filter((i) => XHTML.test(i.type)).map((i) => i.href));
  for (const ref of descendantsNamed(enc, "CipherReference")) {
    const uri = attr(ref, "URI");
    if (uri && chapters.has(resolvePart("", uri)))
      throw new ExtractionError("epub is encrypted (DRM) and cannot be read");
  }
}
