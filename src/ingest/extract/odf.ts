/**
 * OpenDocument text (ODT) and presentations (ODP) from their `content.xml`. ODT headings
 * become `#` lines by outline level, paragraphs and list items lines, table rows `a | b`,
 * footnotes follow their paragraph; ODP is read slide by slide with notes, as PPTX is
 * (docs/API.md, "What text is indexed").
 */
import { ExtractionError } from "./errors";
import { attr, childrenNamed, descendantsNamed, localName, requireXml, tidy } from "./xml";
import type { ZipDirectory } from "./zip";

/** Generated or hidden content: change-tracking records, comments, indexes that repeat headings. */
const SKIP = new Set([
  "tracked-changes",
  "annotation",
  "note-citation",
  "table-of-content",
  "alphabetical-index",
  "illustration-index",
  "sequence-decls",
  "variable-decls",
  "user-field-decls",
  "forms",
]);

/** Extracts an ODT's body text. */
export function extractOdt(bytes: Uint8Array, zip: ZipDirectory): string {
  const body = officeBody(bytes, zip, "odt", "text");
  return tidy(blocks(body).join("\n\n"));
}

/** Extracts an ODP's slides, each `# Slide N: <title>` with its text and `Notes: …`. */
export function extractOdp(bytes: Uint8Array, zip: ZipDirectory): string {
  const body = officeBody(bytes, zip, "odp", "presentation");
  const pages = childrenNamed(body, "page");
  if (pages.length === 0) throw new ExtractionError("odp has no slides");
  return pages.map((page, i) => slideSection(page, i + 1)).join("\n\n");
}

function officeBody(bytes: Uint8Array, zip: ZipDirectory, format: string, kind: string): Element {
  const content = requireXml(bytes, zip, "content.xml", format);
  const body = descendantsNamed(content, "body")[0];
  const inner = body ? childrenNamed(body, kind)[0] : undefined;
  if (!inner) throw new ExtractionError(`${format} content.xml has no office:${kind} body`);
  return inner;
}

function slideSection(page: Element, n: number): string {
  let title = "";
  const texts: string[] = [];
  // Frames, shapes and groups in drawing order; the notes page is read apart.
  for (const shape of page.children) {
    if (localName(shape) === "notes" || localName(shape) === "forms") continue;
    const text = tidy(blocks(shape).join("\n"));
    if (!text) continue;
    if (!title && attr(shape, "class") === "title") title = text.replace(/\s+/g, " ");
    else texts.push(text);
  }
  const notes = childrenNamed(page, "notes")
    .flatMap((n) => childrenNamed(n, "frame").filter((f) => attr(f, "class") !== "page-thumbnail"))
    .map((f) => tidy(blocks(f).join("\n")))
    .filter(Boolean)
    .join("\n");
  const heading = `# Slide ${n}${title ? `: ${title}` : ""}`;
  return [heading, ...texts, notes ? `Notes: ${notes}` : ""].filter(Boolean).join("\n\n");
}

/** Block-level text under an element: headings, paragraphs, list items, table rows. */
function blocks(el: Element): string[] {
  const out: string[] = [];
  for (const child of el.children) {
    const name = localName(child);
    if (SKIP.has(name)) continue;
    if (name === "h" || name === "p") {
      const notes: string[] = [];
      const text = inline(child, notes).trim();
      const level = Math.min(Number(attr(child, "outline-level")) || 1, 6);
      if (text) out.push(name === "h" ? `${"#".repeat(level)} ${text.replace(/\s+/g, " ")}` : text);
      out.push(...notes);
    } else if (name === "table-row") {
      const cells = childrenNamed(child, "table-cell").map((c) => blocks(c).join(" ").replace(/\s+/g, " ").trim());
      if (cells.some(Boolean)) out.push(trimEnd(cells).join(" | "));
    } else if (name === "table") out.push(blocks(child).join("\n"));
    else out.push(...blocks(child));
  }
  return out;
}

/** A paragraph's text: `text:s` spaces, tabs, line breaks; footnote bodies go to `notes`. */
function inline(el: Element, notes: string[]): string {
  let s = "";
  for (const node of el.childNodes) {
    if (node.nodeType === 3) {
      s += (node.textContent ?? "").replace(/\s+/g, " ");
      continue;
    }
    if (node.nodeType !== 1) continue;
    const child = node as Element;
    const name = localName(child);
    if (SKIP.has(name)) continue;
    if (name === "s") s += " ".repeat(Math.min(Number(attr(child, "c")) || 1, 100));
    else if (name === "tab") s += "\t";
    else if (name === "line-break") s += "\n";
    else if (name === "note") notes.push(...descendantsNamed(child, "note-body").flatMap((b) => blocks(b)));
    else if (name === "p" || name === "h") s += `\n${inline(child, notes)}\n`;
    else s += inline(child, notes);
  }
  return s;
}

function trimEnd(cells: string[]): string[] {
  let end = cells.length;
  while (end > 0 && !cells[end - 1]) end--;
  return cells.slice(0, end);
}
