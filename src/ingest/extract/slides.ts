/**
 * PPTX text, slide by slide in presentation order: `# Slide N: <title>`, the text of the
 * slide's shapes and tables, then `Notes: …` from its speaker notes (docs/API.md, "What
 * text is indexed"). Parts are read through zip.ts, so every inflate is capped.
 */
import { ExtractionError } from "./errors";
import {
  attr,
  childrenNamed,
  descendants,
  descendantsNamed,
  localName,
  readXml,
  requireXml,
  resolvePart,
  tidy,
} from "./xml";
import type { ZipDirectory } from "./zip";

const NOTES_REL = /\/notesSlide$/;
/** Placeholders in a notes page that repeat the slide or the page furniture, not notes. */
const NOT_NOTES = new Set(["sldImg", "sldNum", "hdr", "ftr", "dt"]);

/** Extracts every slide of a PPTX whose zip directory has passed the limits. */
export function extractPptx(bytes: Uint8Array, zip: ZipDirectory): string {
  const main = "ppt/presentation.xml";
  const presentation = requireXml(bytes, zip, main, "pptx");
  const rels = relationships(bytes, zip, main);
  const ids = descendantsNamed(presentation, "sldId").map((s) => attr(s, "id", true));
  // Each part once: a list naming one slide two thousand times read it two thousand times.
  let slides = [...new Set(ids.map((id) => (id ? rels.get(id)?.target : undefined)).filter((p): p is string => !!p))];
  // Without a slide list, the slide relationships in the order of their numbers.
  if (slides.length === 0) slides = slideParts([...rels.values()]);
  if (slides.length === 0) throw new ExtractionError("pptx has no slides");
  return slides
    .map((part, i) => slideSection(bytes, zip, part, i + 1))
    .filter(Boolean)
    .join("\n\n");
}

function slideSection(bytes: Uint8Array, zip: ZipDirectory, part: string, n: number): string {
  const slide = readXml(bytes, zip, part);
  if (!slide) throw new ExtractionError(`pptx part ${part} is missing`);
  const shapes = shapeTexts(slide);
  const title = shapes.find((s) => s.placeholder === "title" || s.placeholder === "ctrTitle")?.text;
  const body = shapes.filter((s) => s.text !== title || !title).map((s) => s.text);
  const notesPart = [...relationships(bytes, zip, part).values()].find((r) => NOTES_REL.test(r.type))?.target;
  const notesXml = notesPart ? readXml(bytes, zip, notesPart) : undefined;
  const notes = notesXml
    ? shapeTexts(notesXml)
        .filter((s) => !NOT_NOTES.has(s.placeholder ?? ""))
        .map((s) => s.text)
        .join("\n")
    : "";
  const heading = `# Slide ${n}${title ? `: ${title.replace(/\s+/g, " ")}` : ""}`;
  return [heading, ...body, notes ? `Notes: ${notes}` : ""].filter(Boolean).join("\n\n");
}

interface ShapeText {
  placeholder?: string;
  text: string;
}

/** Each shape (text box, placeholder, table) in drawing order, groups included. */
function shapeTexts(root: Element): ShapeText[] {
  const tree = descendantsNamed(root, "spTree")[0];
  const out: ShapeText[] = [];
  const walk = (el: Element): void => {
    for (const child of el.children) {
      const name = localName(child);
      if (name === "grpSp") walk(child);
      else if (name === "sp" || name === "graphicFrame") {
        const text = tidy(name === "sp" ? paragraphs(child).join("\n") : tableText(child));
        const ph = descendantsNamed(child, "ph")[0];
        if (text) out.push({ placeholder: ph ? (attr(ph, "type") ?? "body") : undefined, text });
      }
    }
  };
  if (tree) walk(tree);
  return out;
}

/** A table's rows, cells separated by ` | `. */
function tableText(frame: Element): string {
  return descendantsNamed(frame, "tr")
    .map((tr) =>
      childrenNamed(tr, "tc")
        .map((tc) => paragraphs(tc).join(" "))
        .join(" | "),
    )
    .join("\n");
}

/** The `a:p` paragraphs under an element, runs joined, `a:br` a line break, `a:tab` a tab. */
function paragraphs(el: Element): string[] {
  return descendantsNamed(el, "p").map((p) => {
    let s = "";
    for (const node of descendants(p)) {
      const name = localName(node);
      if (name === "t") s += node.textContent ?? "";
      else if (name === "br") s += "\n";
      else if (name === "tab") s += "\t";
    }
    return s;
  });
}

function slideParts(rels: Rel[]): string[] {
  const number = (part: string) => Number(/(\d+)\.xml$/.exec(part)?.[1] ?? 0);
  return rels
    .filter((r) => /\/slide$/.test(r.type))
    .map((r) => r.target)
    .sort((a, b) => number(a) - number(b));
}

interface Rel {
  type: string;
  target: string;
}

/** A part's relationships by id, targets resolved to part names. */
function relationships(bytes: Uint8Array, zip: ZipDirectory, part: string): Map<string, Rel> {
  const slash = part.lastIndexOf("/");
  const relsPart = `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`;
  const root = readXml(bytes, zip, relsPart);
  const out = new Map<string, Rel>();
  for (const r of root ? descendantsNamed(root, "Relationship") : []) {
    const id = attr(r, "Id");
    const target = attr(r, "Target");
    if (!id || !target || attr(r, "TargetMode") === "External") continue;
    out.set(id, { type: attr(r, "Type") ?? "", target: resolvePart(part, target) });
  }
  return out;
}
