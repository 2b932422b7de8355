/**
 * XML parts of zip-based documents (OOXML, OpenDocument, EPUB), parsed with linkedom.
 * linkedom keeps qualified names as written and does not resolve namespaces, and producers
 * are free to pick their prefixes (`a:t`, `ns0:t`, or a default namespace), so elements are
 * matched by local name. It expands no DTD entities, so a "billion laughs" part is inert.
 */
import { DOMParser } from "linkedom";
import { ExtractionError } from "./errors";
import { inflateEntry, type ZipDirectory, type ZipEntry } from "./zip";

const utf8 = new TextDecoder();

/** The local part of an element's name: `a:t` → `t`. */
export function localName(el: Element): string {
  const name = el.tagName;
  return name.slice(name.indexOf(":") + 1);
}

/** Parses XML text; the root element, or ExtractionError naming the part. */
export function parseXml(text: string, part: string): Element {
  const root = new DOMParser().parseFromString(text, "text/xml").documentElement as unknown as Element | null;
  if (!root) throw new ExtractionError(`${part} is not valid XML`);
  return root;
}

const MB = 1024 * 1024;
/**
 * A parsed part takes about 30 bytes of memory per byte of XML (measured: a 17 MB ODT
 * content.xml peaked at 500 MB more), so one part is parsed only up to this size.
 */
export const XML_PART_LIMIT = 32 * MB;

/** Inflates one part for parsing, after checking its declared size against XML_PART_LIMIT. */
export function inflatePart(bytes: Uint8Array, entry: ZipEntry): string {
  if (entry.size > XML_PART_LIMIT)
    throw new ExtractionError(
      `document part ${entry.name} is too large to read: ${(entry.size / MB).toFixed(1)} MB (limit ${XML_PART_LIMIT / MB} MB)`,
    );
  return utf8.decode(inflateEntry(bytes, entry));
}

/** Inflates (within the zip limits) and parses one part; undefined when the zip has no such part. */
export function readXml(bytes: Uint8Array, zip: ZipDirectory, part: string): Element | undefined {
  const entry = zip.get(part);
  return entry ? parseXml(inflatePart(bytes, entry), part) : undefined;
}

/** Like readXml, but the part must exist. */
export function requireXml(bytes: Uint8Array, zip: ZipDirectory, part: string, format: string): Element {
  const root = readXml(bytes, zip, part);
  if (!root) throw new ExtractionError(`${format} part ${part} is missing`);
  return root;
}

/** Element children with the given local name. */
export function childrenNamed(el: Element, name: string): Element[] {
  return [...el.children].filter((c) => localName(c) === name);
}

/** Every element under `el`, in document order (linkedom's getElementsByTagName("*") finds none in XML). */
export function descendants(el: Element): Element[] {
  const out: Element[] = [];
  const stack = [...el.children].reverse();
  while (stack.length > 0) {
    const next = stack.pop()!;
    out.push(next);
    // linkedom builds `children` anew on each access: read it once per element.
    const kids = next.children;
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
  }
  return out;
}

/** Descendants with the given local name, in document order. */
export function descendantsNamed(el: Element, name: string): Element[] {
  return descendants(el).filter((c) => localName(c) === name);
}

/** The first descendant with the given local name. */
export function firstNamed(el: Element, name: string): Element | undefined {
  return descendantsNamed(el, name)[0];
}

/**
 * An attribute by local name, whatever its prefix (`xlink:href`); with `prefixed`, only a
 * prefixed one (`r:id` beside a plain `id`).
 */
export function attr(el: Element, name: string, prefixed = false): string | undefined {
  for (const a of el.attributes) if ((!prefixed && a.name === name) || a.name.endsWith(`:${name}`)) return a.value;
  return undefined;
}

/** Resolves a relative part name against the part that refers to it: (`ppt/slides/x.xml`, `../notes/n.xml`). */
export function resolvePart(from: string, target: string): string {
  if (target.startsWith("/")) return decode(target.slice(1));
  const url = new URL(target, `http://zip/${from}`);
  return decode(url.pathname.slice(1));
}

function decode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** Collapses runs of spaces and trims each line; drops empty lines at either end. */
export function tidy(text: string): string {
  return text
    .replace(/[ \t\u00a0]+/g, " ")
    .replace(/ *\n */g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
