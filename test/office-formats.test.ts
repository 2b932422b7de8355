/**
 * Spreadsheets, slides, OpenDocument, EPUB and RTF through `extract` (docs/API.md, "What
 * text is indexed"): exact text for files the tests build, recognisable text for the
 * real-world fixtures, and the zip limits applied before any parser sees the bytes.
 */
import { describe, expect, test } from "bun:test";
import * as XLSX from "@e965/xlsx";
import JSZip from "jszip";
import { FILE_ACCEPT, FILE_EXTENSIONS } from "../src/dashboard/lib/formats";
import { extract, ExtractionError } from "../src/ingest/extract";
import { READABLE_EXTENSIONS } from "../src/ingest/extract/detect";
import { makeDocx } from "./support/ingest";
import { type Chapter, fixture, makeEpub, makeOdf, makePptx, makeWorkbook, odpPage } from "./support/office";

const utf8 = (s: string) => new TextEncoder().encode(s);
/** Real-world files from ../shared/fixtures; their tests are skipped when it is absent. */
const REAL = {
  xlsx: fixture("officeparser-test.xlsx"),
  pptx: fixture("officeparser-test.pptx"),
  odt: fixture("officeparser-test.odt"),
};
const latin1 = (s: string) => Uint8Array.from([...s].map((c) => c.charCodeAt(0)));

async function rejection(bytes: Uint8Array, hints = {}): Promise<string> {
  const err = await extract(bytes, hints).then(
    () => new Error("extract resolved"),
    (e: Error) => e,
  );
  expect(err).toBeInstanceOf(ExtractionError);
  return err.message;
}

/** Rewrites the uncompressed size that the central directory declares for one entry. */
function declareSize(zip: Uint8Array, name: string, size: number): Uint8Array {
  const at = Buffer.from(zip).lastIndexOf(Buffer.from(name)) - 46;
  const view = new DataView(zip.buffer, zip.byteOffset);
  expect(view.getUint32(at, true)).toBe(0x02014b50);
  view.setUint32(at + 24, size, true);
  return zip;
}

const SHEETS = {
  Staff: [
    ["Team roster"],
    [],
    ["Name", "Role", "Start"],
    ["Ada Lovelace", "Engineer", 1843],
    ["Grace Hopper", "Admiral"],
  ],
  Budget: [
    ["Item", "Cost"],
    ["Coffee beans", 12.5],
    ["Milk", 3],
  ],
  Empty: [],
  Grid: [
    [1, 2],
    [3, 4],
  ],
};
const SHEETS_TEXT = [
  "# Staff\n\nTeam roster\nName: Ada Lovelace; Role: Engineer; Start: 1843\nName: Grace Hopper; Role: Admiral",
  "# Budget\n\nItem: Coffee beans; Cost: 12.5\nItem: Milk; Cost: 3",
  "# Grid\n\n1; 2\n3; 4",
].join("\n\n");

describe("spreadsheets", () => {
  for (const format of ["xlsx", "ods"] as const) {
    test(`${format}: each sheet a section, header names with each row`, async () => {
      const out = await extract(makeWorkbook(SHEETS, format), { fileName: `book.${format}` });
      expect(out).toEqual({ kind: format, text: SHEETS_TEXT });
    });
  }

  test("an ods without styles.xml (optional in ODF 1.2) reads as its sheets", async () => {
    const zip = await JSZip.loadAsync(makeWorkbook(SHEETS, "ods"));
    expect(zip.file("styles.xml")).not.toBeNull();
    zip.remove("styles.xml");
    const bytes = await zip.generateAsync({ type: "uint8array", compression: "DEFLATE" });
    expect(await extract(bytes, { fileName: "book.ods" })).toEqual({ kind: "ods", text: SHEETS_TEXT });
  });

  test("an xlsx is known by its content, whatever its name", async () => {
    expect((await extract(makeWorkbook(SHEETS, "xlsx"), { fileName: "upload.bin" })).kind).toBe("xlsx");
  });

  test.skipIf(!REAL.xlsx)("the real-world xlsx fixture reads as its sheets", async () => {
    const out = await extract(REAL.xlsx!, { fileName: "officeparser-test.xlsx" });
    expect(out.kind).toBe("xlsx");
    expect(out.text).toStartWith("# Sheet1\n\nDemonstration of DOCX support in calibre");
    expect(out.text).toContain("# Chart Sheet");
    // A table inside a sheet keeps its header names.
    expect(out.text).toContain("College: Cedar University; New students: 110; Graduating students: 103; Change: +7");
  });
});

describe("slides", () => {
  const SLIDES = [
    { title: "Quarterly review", body: ["Revenue grew 12%", "Churn fell"], notes: "Mention the new office" },
    { title: "Next steps", body: ["Hire two engineers"] },
    { title: "Thanks", body: [] },
  ];
  const TEXT =
    "# Slide 1: Quarterly review\n\nRevenue grew 12%\nChurn fell\n\nNotes: Mention the new office\n\n" +
    "# Slide 2: Next steps\n\nHire two engineers\n\n# Slide 3: Thanks";

  test("pptx: slides in presentation order, with titles and notes", async () => {
    expect(await extract(await makePptx(SLIDES), { fileName: "deck.pptx" })).toEqual({ kind: "pptx", text: TEXT });
  });

  test("odp: the same deck as OpenDocument", async () => {
    const body = SLIDES.map((s, i) => odpPage(`page${i + 1}`, s.title, s.body, s.notes)).join("");
    expect(await extract(await makeOdf("presentation", body), { fileName: "deck.odp" })).toEqual({
      kind: "odp",
      text: TEXT,
    });
  });

  test.skipIf(!REAL.pptx)("the real-world pptx fixture reads slide by slide with its notes", async () => {
    const out = await extract(REAL.pptx!, { fileName: "officeparser-test.pptx" });
    expect(out.kind).toBe("pptx");
    expect(out.text).toStartWith("# Slide 1: Demonstration of DOCX support in calibre\n\n");
    expect(out.text).toContain("Notes: Slide Note 1.");
    expect(out.text).toContain("# Slide 3: Tables\n\nITEM | NEEDED\nBooks | 1\nPens | 3");
    expect(out.text.indexOf("# Slide 2: Text Formatting")).toBeGreaterThan(out.text.indexOf("Slide Note 1."));
  });

  test("a pptx without a slide list is read in the order of its slide files", async () => {
    const zip = await JSZip.loadAsync(await makePptx(SLIDES));
    const main = await zip.file("ppt/presentation.xml")!.async("string");
    zip.file("ppt/presentation.xml", main.replace(/<p:sldIdLst>.*<\/p:sldIdLst>/, ""));
    const out = await extract(await zip.generateAsync({ type: "uint8array" }), { fileName: "deck.pptx" });
    // makePptx numbers the files in reverse: slide1.xml holds the last slide.
    expect(out.text).toStartWith(
      "# Slide 1: Thanks\n\n# Slide 2: Next steps\n\nHire two engineers\n\n# Slide 3: Quarterly review",
    );
  });

  test("a missing slide part names it", async () => {
    const zip = await JSZip.loadAsync(await makePptx(SLIDES));
    zip.remove("ppt/slides/slide3.xml");
    const bytes = await zip.generateAsync({ type: "uint8array" });
    expect(await rejection(bytes, { fileName: "deck.pptx" })).toBe("pptx part ppt/slides/slide3.xml is missing");
  });
});

describe("odt", () => {
  const BODY = [
    "<text:tracked-changes><text:changed-region><text:deletion><text:p>deleted words</text:p></text:deletion></text:changed-region></text:tracked-changes>",
    '<text:h text:outline-level="1">Field guide</text:h>',
    '<text:p>Owls hunt<text:s text:c="3"/>at night.<text:note text:note-class="footnote"><text:note-citation>1</text:note-citation><text:note-body><text:p>Most of them.</text:p></text:note-body></text:note></text:p>',
    '<text:h text:outline-level="2">Kit</text:h>',
    "<text:list><text:list-item><text:p>Binoculars</text:p></text:list-item><text:list-item><text:p>Note<text:span>book</text:span></text:p></text:list-item></text:list>",
    "<table:table><table:table-row><table:table-cell><text:p>Bird</text:p></table:table-cell><table:table-cell><text:p>Season</text:p></table:table-cell></table:table-row>",
    "<table:table-row><table:table-cell><text:p>Owl</text:p></table:table-cell><table:table-cell><text:p>Winter</text:p></table:table-cell></table:table-row></table:table>",
  ].join("");

  test("headings, paragraphs, footnotes, lists and tables; deletions left out", async () => {
    expect(await extract(await makeOdf("text", BODY), { fileName: "guide.odt" })).toEqual({
      kind: "odt",
      text: "# Field guide\n\nOwls hunt at night.\n\nMost of them.\n\n## Kit\n\nBinoculars\n\nNotebook\n\nBird | Season\nOwl | Winter",
    });
  });

  test.skipIf(!REAL.odt)("the real-world odt fixture reads with its headings", async () => {
    const out = await extract(REAL.odt!, { fileName: "officeparser-test.odt" });
    expect(out.kind).toBe("odt");
    expect(out.text).toStartWith("# Demonstration of DOCX support in calibre\n\nThis document demonstrates");
    expect(out.text).toContain("## Inline formatting");
    expect(out.text).toContain("ITEM | NEEDED\nBooks | 1");
  });
});

describe("epub", () => {
  const CHAPTERS: Chapter[] = [
    { file: "c1.xhtml", title: "Chapter 1: The Harbour", paragraphs: ["The boats came in at dawn."] },
    { file: "c2.xhtml", title: "Chapter 2: The Storm", paragraphs: ["Wind tore the sails.", "Nobody slept."] },
  ];
  const TEXT =
    "# Chapter 1: The Harbour\n\nThe boats came in at dawn.\n\n# Chapter 2: The Storm\n\nWind tore the sails.\n\nNobody slept.";

  for (const version of [3, 2] as const) {
    test(`EPUB ${version}: chapters in spine order, titled from the table of contents`, async () => {
      const out = await extract(await makeEpub("Sea Stories", CHAPTERS, version), { fileName: "sea.epub" });
      expect(out).toEqual({ kind: "epub", text: TEXT, title: "Sea Stories" });
    });
  }

  const encryption = (uri: string) =>
    `<?xml version="1.0"?><encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:CipherData><enc:CipherReference URI="${uri}"/></enc:CipherData></enc:EncryptedData></encryption>`;
  test("encrypted chapters (DRM) fail saying so; an obfuscated font does not matter", async () => {
    const zip = await JSZip.loadAsync(await makeEpub("Sea Stories", CHAPTERS, 3));
    zip.file("META-INF/encryption.xml", encryption("OEBPS/fonts/serif.otf"));
    expect((await extract(await zip.generateAsync({ type: "uint8array" }), {})).text).toBe(TEXT);
    zip.file("META-INF/encryption.xml", encryption("OEBPS/text/c2.xhtml"));
    expect(await rejection(await zip.generateAsync({ type: "uint8array" }))).toBe(
      "epub is encrypted (DRM) and cannot be read",
    );
  });

  test("a missing chapter names it", async () => {
    const zip = await JSZip.loadAsync(await makeEpub("Sea Stories", CHAPTERS, 3));
    zip.remove("OEBPS/text/c2.xhtml");
    const bytes = await zip.generateAsync({ type: "uint8array" });
    expect(await rejection(bytes, { fileName: "sea.epub" })).toBe("epub chapter OEBPS/text/c2.xhtml is missing");
  });
});

describe("rtf", () => {
  const WORDPAD = [
    "{\\rtf1\\ansi\\ansicpg1252\\deff0\\nouicompat\\deflang1033{\\fonttbl{\\f0\\fnil\\fcharset0 Calibri;}{\\f1\\fswiss Arial;}}",
    "{\\colortbl ;\\red255\\green0\\blue0;}",
    "{\\*\\generator Riched20 10.0.19041}{\\info{\\title Hidden title}{\\author Jane}}\\viewkind4\\uc1 ",
    "\\pard\\sa200\\sl276\\slmult1\\b\\f0\\fs28 Caf\\'e9 menu\\b0\\par",
    "Espresso costs \\'80 2 \\endash  cheap.\\par",
    "{\\*\\bkmkstart x}Na\\u239?ve na\\u239\\'efve \\u8220?quoted\\u8221? \\u-10179?\\u-8704?\\line second line\\par",
    '{\\field{\\*\\fldinst{HYPERLINK "http://example.com"}}{\\fldrslt{\\ul\\cf1 our site}}}\\par',
    "{\\pict\\pngblip\\picw10\\pich10 89504e470d0a1a0a}\\par",
    "\\trowd\\cellx2000\\cellx4000 Tea\\cell 3\\cell\\row",
    "}",
  ].join("\r\n");

  test("a WordPad-style document: code page bytes, \\uN with fallbacks, fields, tables; no tables of fonts or info", async () => {
    expect(await extract(latin1(WORDPAD), { fileName: "menu.rtf" })).toEqual({
      kind: "rtf",
      text: "Café menu\n\nEspresso costs € 2 – cheap.\n\nNaïve naïve “quoted” 😀\nsecond line\n\nour site\n\nTea | 3",
    });
  });

  const cases: [string, string, string][] = [
    [
      "windows-1251 (\\ansicpg1251)",
      "{\\rtf1\\ansi\\ansicpg1251 \\'cf\\'f0\\'e8\\'e2\\'e5\\'f2 \\'ec\\'e8\\'f0\\par}",
      "Привет мир",
    ],
    ["Shift_JIS double-byte (\\ansicpg932)", "{\\rtf1\\ansi\\ansicpg932 \\'93\\'fa\\'96\\'7b\\par}", "日本"],
    ["\\uc2 skips two fallback bytes", "{\\rtf1\\uc2 A\\u26085\\'93\\'fa B}", "A日 B"],
    ["escaped braces and backslashes", "{\\rtf1 a \\{b\\} c\\\\d}", "a {b} c\\d"],
  ];
  test.each(cases)("%s", async (_, rtf, text) => {
    expect((await extract(latin1(rtf), {})).text).toBe(text);
  });

  test("a .rtf name without RTF inside fails naming it", async () => {
    expect(await rejection(utf8("just words"), { fileName: "notes.rtf" })).toBe("content is not a valid rtf file");
  });
});

describe("zip limits before any parser", () => {
  test("an xlsx that declares a 150 MB sheet is refused before SheetJS sees it", async () => {
    const bomb = declareSize(makeWorkbook(SHEETS, "xlsx"), "xl/worksheets/sheet1.xml", 150 * 2 ** 20);
    expect(await rejection(bomb, { fileName: "b.xlsx" })).toMatch(
      /^zip archive refused: entry xl\/worksheets\/sheet1.xml expands to 150\.0 MB/,
    );
  });

  test("an xlsx part that inflates beyond its declared size is stopped there", async () => {
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(Array.from({ length: 2000 }, (_, i) => [i, i])), "S");
    const bytes = new Uint8Array(XLSX.write(book, { type: "array", bookType: "xlsx", compression: true }));
    const lying = declareSize(bytes, "xl/worksheets/sheet1.xml", 100);
    expect(await rejection(lying, { fileName: "b.xlsx" })).toBe(
      "zip archive refused: entry xl/worksheets/sheet1.xml inflates beyond its declared 100 bytes",
    );
  });

  test("a workbook whose sheets expand beyond 50 MB in all is refused before any is inflated", async () => {
    const six = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`S${i + 1}`, [["a", "b"]]]));
    let bytes = makeWorkbook(six, "xlsx");
    // 9 MB each stays under the zip guard's per-entry ratio rule (entries over 10 MB).
    for (let i = 1; i <= 6; i++) bytes = declareSize(bytes, `xl/worksheets/sheet${i}.xml`, 9 * 2 ** 20);
    expect(await rejection(bytes, { fileName: "big.xlsx" })).toMatch(
      /^xlsx too large: its sheets expand to 54\.\d MB \(limit 50 MB\)$/,
    );
  });

  test("an odt whose content.xml expands beyond 32 MB is refused before it is parsed", async () => {
    // 300 KB of stored, incompressible filler keeps a 40 MB declaration under the 200:1 ratio rule.
    const filler = Buffer.from(crypto.getRandomValues(new Uint8Array(225_000))).toString("base64");
    const zip = await JSZip.loadAsync(await makeOdf("text", `<text:p>hi</text:p><!-- ${filler} -->`));
    const bytes = await zip.generateAsync({ type: "uint8array", compression: "STORE" });
    expect(await rejection(declareSize(bytes, "content.xml", 40 * 2 ** 20), { fileName: "big.odt" })).toBe(
      "document part content.xml is too large to read: 40.0 MB (limit 32 MB)",
    );
  });

  test("an epub that declares a 150 MB chapter is refused", async () => {
    const book = await makeEpub("x", [{ file: "c1.xhtml", title: "One", paragraphs: ["a"] }], 3);
    const bomb = declareSize(book, "OEBPS/text/c1.xhtml", 150 * 2 ** 20);
    expect(await rejection(bomb, { fileName: "b.epub" })).toMatch(/^zip archive refused: entry OEBPS\/text\/c1.xhtml/);
  });

  const bombs: [string, string, RegExp][] = [
    ["officeparser-large_size_archive.docx", "report.xlsx", /^zip archive refused: entry .* expands to 600\.0 MB/],
    ["officeparser-oversized_archive.docx", "deck.pptx", /^zip archive refused: entry .* compression ratio of \d+:1/],
    ["officeparser-many_entries_archive.docx", "book.epub", /^zip archive refused: \d+ entries \(limit 2000\)/],
  ];
  for (const [name, fileName, message] of bombs) {
    const bytes = fixture(name);
    test.skipIf(!bytes)(`the real-world bomb ${name} disguised as ${fileName} is refused`, async () => {
      expect(await rejection(bytes!, { fileName })).toMatch(message);
    });
  }
});

describe("corrupt office files", () => {
  test("a truncated xlsx", async () => {
    const bytes = makeWorkbook(SHEETS, "xlsx");
    expect(await rejection(bytes.slice(0, bytes.length >> 1), { fileName: "a.xlsx" })).toBe(
      "corrupt zip archive: no end of central directory",
    );
  });

  test("an xlsx whose workbook part is not a workbook", async () => {
    const zip = await JSZip.loadAsync(makeWorkbook(SHEETS, "xlsx"));
    zip.file("xl/workbook.xml", "this is not xml");
    zip.remove("xl/_rels/workbook.xml.rels");
    const message = await rejection(await zip.generateAsync({ type: "uint8array" }), { fileName: "a.xlsx" });
    expect(message).toBe("could not read the XLSX file: it is damaged or is not an XLSX file");
  });

  const notZips: [string, string][] = [
    ["a.xlsx", "content is not a valid xlsx file"],
    ["a.pptx", "content is not a valid pptx file"],
    ["a.odt", "content is not a valid odt file"],
    ["a.epub", "content is not a valid epub file"],
  ];
  test.each(notZips)("text named %s", async (fileName, message) => {
    expect(await rejection(utf8("plain words, not a zip"), { fileName })).toBe(message);
  });

  test("an odt nested 100,000 spans deep fails with a sentence", async () => {
    const body = `<text:p>${"<text:span>".repeat(100_000)}deep${"</text:span>".repeat(100_000)}</text:p>`;
    expect(await rejection(await makeOdf("text", body), { fileName: "deep.odt" })).toBe(
      "document is nested too deeply to read",
    );
  });

  test("a docx nested 100,000 elements deep fails with the same sentence", async () => {
    const deep = `${"<w:sdt><w:sdtContent>".repeat(100_000)}<w:p><w:r><w:t>deep</w:t></w:r></w:p>${"</w:sdtContent></w:sdt>".repeat(100_000)}`;
    const document = `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${deep}</w:body></w:document>`;
    expect(await rejection(await makeDocx([], { "word/document.xml": document }), { fileName: "deep.docx" })).toBe(
      "document is nested too deeply to read",
    );
  });

  test("a zip of some other OpenDocument kind names its type", async () => {
    const zip = new JSZip().file("mimetype", "application/vnd.oasis.opendocument.graphics").file("content.xml", "<x/>");
    expect(await rejection(await zip.generateAsync({ type: "uint8array" }))).toBe(
      "unsupported file type: application/vnd.oasis.opendocument.graphics (OpenDocument file of a kind ragd does not read)",
    );
  });
});

test("the dashboard's file pickers accept exactly the extensions the server reads", () => {
  expect([...FILE_EXTENSIONS].sort()).toEqual([...READABLE_EXTENSIONS].sort());
  for (const ext of ["xlsx", "ods", "pptx", "odp", "odt", "epub", "rtf"]) expect(FILE_ACCEPT).toContain(`.${ext},`);
});
