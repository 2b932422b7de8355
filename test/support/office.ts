/**
 * Office documents and e-books built in memory for the extraction tests: spreadsheets
 * written by SheetJS, and minimal PPTX, ODP, ODT and EPUB packages assembled with jszip
 * from the parts their specifications require.
 */
import * as XLSX from "@e965/xlsx";
import JSZip from "jszip";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** A workbook with one sheet per entry, each an array of rows; written as XLSX or ODS. */
export function makeWorkbook(sheets: Record<string, unknown[][]>, bookType: "xlsx" | "ods"): Uint8Array {
  const book = XLSX.utils.book_new();
  for (const [name, rows] of Object.entries(sheets))
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(rows), name);
  return new Uint8Array(XLSX.write(book, { type: "array", bookType }) as ArrayBuffer);
}

const zipOf = async (parts: Record<string, string>, mimetype?: string): Promise<Uint8Array> => {
  const zip = new JSZip();
  // ODF and EPUB want `mimetype` first and stored.
  if (mimetype) zip.file("mimetype", mimetype, { compression: "STORE" });
  for (const [name, data] of Object.entries(parts)) zip.file(name, data);
  return zip.generateAsync({ type: "uint8array", compression: "DEFLATE" });
};

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const A = "http://schemas.openxmlformats.org/drawingml/2006/main";
const P = "http://schemas.openxmlformats.org/presentationml/2006/main";
const R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const PKG = "http://schemas.openxmlformats.org/package/2006/relationships";

export interface SlideSpec {
  title: string;
  body: string[];
  notes?: string;
}

const shape = (ph: string | undefined, paras: string[]) =>
  `<p:sp><p:nvSpPr><p:cNvPr id="2" name="s"/><p:cNvSpPr/><p:nvPr>${ph ? `<p:ph type="${ph}"/>` : ""}</p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/>${paras
    .map((t) => `<a:p><a:r><a:rPr lang="en-US"/><a:t>${esc(t)}</a:t></a:r></a:p>`)
    .join("")}</p:txBody></p:sp>`;
const sld = (root: string, shapes: string) =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:${root} xmlns:a="${A}" xmlns:r="${R}" xmlns:p="${P}"><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>${shapes}</p:spTree></p:cSld></p:${root}>`;

/**
 * A PPTX whose slide files are numbered in reverse of the presentation order, so that a
 * reader going by file name gets the order wrong.
 */
export function makePptx(slides: SlideSpec[]): Promise<Uint8Array> {
  const n = slides.length;
  const file = (i: number) => n - i; // slide i (0-based) lives in slide{n-i}.xml
  const parts: Record<string, string> = {
    "[Content_Types].xml": `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/></Types>`,
    "_rels/.rels": `<?xml version="1.0"?><Relationships xmlns="${PKG}"><Relationship Id="rId1" Type="${R}/officeDocument" Target="ppt/presentation.xml"/></Relationships>`,
    "ppt/presentation.xml": `<?xml version="1.0"?><p:presentation xmlns:a="${A}" xmlns:r="${R}" xmlns:p="${P}"><p:sldIdLst>${slides
      .map((_, i) => `<p:sldId id="${256 + i}" r:id="rId${10 + i}"/>`)
      .join("")}</p:sldIdLst></p:presentation>`,
    "ppt/_rels/presentation.xml.rels": `<?xml version="1.0"?><Relationships xmlns="${PKG}">${slides
      .map((_, i) => `<Relationship Id="rId${10 + i}" Type="${R}/slide" Target="slides/slide${file(i)}.xml"/>`)
      .join("")}</Relationships>`,
  };
  slides.forEach((s, i) => {
    parts[`ppt/slides/slide${file(i)}.xml`] = sld("sld", shape("title", [s.title]) + shape(undefined, s.body));
    if (!s.notes) return;
    parts[`ppt/slides/_rels/slide${file(i)}.xml.rels`] =
      `<?xml version="1.0"?><Relationships xmlns="${PKG}"><Relationship Id="rId2" Type="${R}/notesSlide" Target="../notesSlides/notesSlide${i + 1}.xml"/></Relationships>`;
    parts[`ppt/notesSlides/notesSlide${i + 1}.xml`] = sld(
      "notes",
      shape("sldImg", []) + shape("body", [s.notes]) + shape("sldNum", [String(i + 1)]),
    );
  });
  return zipOf(parts);
}

const ODF_NS = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"`;
const MANIFEST = `<?xml version="1.0"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type="x"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`;

/** An ODF package with the given `office:body` content. */
export function makeOdf(kind: "text" | "presentation", body: string): Promise<Uint8Array> {
  return zipOf(
    {
      "META-INF/manifest.xml": MANIFEST,
      "content.xml": `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${ODF_NS} office:version="1.3"><office:body><office:${kind}>${body}</office:${kind}></office:body></office:document-content>`,
    },
    `application/vnd.oasis.opendocument.${kind}`,
  );
}

/** An ODP page: a title frame, a body frame of paragraphs, and speaker notes. */
export const odpPage = (name: string, title: string, body: string[], notes?: string) =>
  `<draw:page draw:name="${name}"><draw:frame presentation:class="title"><draw:text-box><text:p>${esc(title)}</text:p></draw:text-box></draw:frame><draw:frame presentation:class="outline"><draw:text-box>${body
    .map((b) => `<text:p>${esc(b)}</text:p>`)
    .join(
      "",
    )}</draw:text-box></draw:frame>${notes ? `<presentation:notes><draw:page-thumbnail presentation:class="page"/><draw:frame presentation:class="notes"><draw:text-box><text:p>${esc(notes)}</text:p></draw:text-box></draw:frame></presentation:notes>` : ""}</draw:page>`;

export interface Chapter {
  file: string;
  title: string;
  paragraphs: string[];
}

/**
 * An EPUB 3 (nav document) or EPUB 2 (NCX) book. The manifest lists the chapters in
 * reverse, so only the spine gives the reading order; chapter files carry a different
 * `<title>` than the table of contents, which must win.
 */
export function makeEpub(title: string, chapters: Chapter[], version: 2 | 3): Promise<Uint8Array> {
  const manifest = [...chapters]
    .reverse()
    .map((c) => `<item id="${c.file}" href="text/${c.file}" media-type="application/xhtml+xml"/>`)
    .join("");
  const toc =
    version === 3
      ? `<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>`
      : `<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>`;
  const parts: Record<string, string> = {
    "META-INF/container.xml": `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`,
    "OEBPS/content.opf": `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="${version}.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">urn:uuid:1</dc:identifier><dc:title>${esc(title)}</dc:title><dc:language>en</dc:language></metadata><manifest>${manifest}${toc}</manifest><spine${version === 2 ? ' toc="ncx"' : ""}>${chapters
      .map((c) => `<itemref idref="${c.file}"/>`)
      .join("")}</spine></package>`,
    "OEBPS/nav.xhtml": `<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>Contents</title></head><body><nav epub:type="toc"><ol>${chapters
      .map((c) => `<li><a href="text/${c.file}#start">${esc(c.title)}</a></li>`)
      .join("")}</ol></nav></body></html>`,
    "OEBPS/toc.ncx": `<?xml version="1.0"?><ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1"><navMap>${chapters
      .map(
        (c, i) =>
          `<navPoint id="p${i}" playOrder="${i + 1}"><navLabel><text>${esc(c.title)}</text></navLabel><content src="text/${c.file}"/></navPoint>`,
      )
      .join("")}</navMap></ncx>`,
  };
  if (version === 2) delete parts["OEBPS/nav.xhtml"];
  else delete parts["OEBPS/toc.ncx"];
  for (const c of chapters)
    parts[`OEBPS/text/${c.file}`] =
      `<?xml version="1.0" encoding="utf-8"?><!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml"><head><title>file ${c.file}</title></head><body>${c.paragraphs
        .map((p) => `<p>${esc(p)}</p>`)
        .join("")}</body></html>`;
  return zipOf(parts, "application/epub+zip");
}

/** The shared real-world fixtures, when they are beside the repository; undefined otherwise. */
export function fixture(name: string): Uint8Array | undefined {
  const path = join(import.meta.dir, "..", "..", "..", "shared", "fixtures", name);
  if (!existsSync(path)) {
    console.warn(`fixture ${name} is not in ../shared/fixtures: its tests are skipped`);
    return undefined;
  }
  return new Uint8Array(readFileSync(path));
}
