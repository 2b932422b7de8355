import { describe, expect, test } from "bun:test";
import JSZip from "jszip";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { extract, ExtractionError } from "../src/ingest/extract";
import * as XLSX from "@e965/xlsx";
import { makePptx } from "./support/office";

const utf8 = (s: string) => new TextEncoder().encode(s);

const DOCX_PARTS: Record<string, string> = {
  "[Content_Types].xml": `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
  "_rels/.rels": `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
  "word/document.xml": `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Ragd reads Word files.</w:t></w:r></w:p><w:p><w:r><w:t>Second paragraph here.</w:t></w:r></w:p></w:body></w:document>`,
};

/** A DOCX built with jszip; `extra` adds entries, `deflate` picks the compression. */
async function docx(extra: Record<string, Uint8Array | string> = {}, deflate = true): Promise<Uint8Array> {
  const zip = new JSZip();
  for (const [name, data] of Object.entries({ ...DOCX_PARTS, ...extra })) zip.file(name, data);
  return zip.generateAsync({ type: "uint8array", compression: deflate ? "DEFLATE" : "STORE" });
}

/** Rewrites the uncompressed size that the central directory declares for one entry. */
function declareSize(zip: Uint8Array, name: string, size: number): Uint8Array {
  const at = Buffer.from(zip).lastIndexOf(Buffer.from(name)) - 46;
  expect(new DataView(zip.buffer, zip.byteOffset).getUint32(at, true)).toBe(0x02014b50);
  new DataView(zip.buffer, zip.byteOffset).setUint32(at + 24, size, true);
  return zip;
}

async function rejection(bytes: Uint8Array, hints = {}): Promise<Error> {
  const err = await extract(bytes, hints).then(
    () => new Error("extract resolved"),
    (e: Error) => e,
  );
  expect(err).toBeInstanceOf(ExtractionError);
  return err;
}

describe("pdf and docx", () => {
  test("a PDF made with pdf-lib gives back its sentences", async () => {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    doc.addPage().drawText("The quick brown fox jumps over the lazy dog.", { x: 50, y: 700, font, size: 12 });
    doc.addPage().drawText("Retrieval needs clean text.", { x: 50, y: 700, font, size: 12 });
    doc.setTitle("Fox Paper");
    const out = await extract(await doc.save(), {});
    expect(out.kind).toBe("pdf");
    expect(out.text).toContain("The quick brown fox jumps over the lazy dog.");
    expect(out.text).toContain("Retrieval needs clean text.");
    expect(out.title).toBe("Fox Paper");
  });

  test("a DOCX made with jszip gives back its paragraphs", async () => {
    const out = await extract(await docx(), { fileName: "a.docx" });
    expect(out).toMatchObject({ kind: "docx" });
    expect(out.text).toContain("Ragd reads Word files.");
    expect(out.text).toContain("Second paragraph here.");
  });

  test("a zip that declares a 150 MB entry is refused before inflating", async () => {
    const bomb = declareSize(await docx({ "word/media/big.bin": "0" }, false), "word/media/big.bin", 150 * 2 ** 20);
    const started = performance.now();
    expect((await rejection(bomb)).message).toMatch(/zip archive refused: entry word\/media\/big.bin expands to 150/);
    expect(performance.now() - started).toBeLessThan(200);
  });

  test("a zip with 3,000 entries is refused", async () => {
    const many = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`word/x${i}.xml`, ""]));
    expect((await rejection(await docx(many, false))).message).toMatch(/30\d\d entries \(limit 2000\)/);
  });

  test("an entry that inflates beyond its declared size is stopped at that size", async () => {
    const huge = `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${"<w:p/>".repeat(400_000)}</w:body></w:document>`;
    const lying = declareSize(await docx({ "word/document.xml": huge }), "word/document.xml", 1000);
    expect((await rejection(lying)).message).toMatch(/inflates beyond its declared 1000 bytes/);
  });
});

describe("html", () => {
  const para = (s: string) => `<p>${s} ${"Readers keep the paragraphs of the article body. ".repeat(6)}</p>`;
  const page = `<!doctype html><html><head><title>Field Notes</title></head><body>
    <header><a href="/">Site Header Link</a></header>
    <nav><ul><li><a href="/a">Menu Alpha</a></li><li><a href="/b">Menu Beta</a></li></ul></nav>
    <article><h1>Field Notes</h1>${para("Owls hunt at night.")}${para("Foxes den in spring.")}${para("Bats echolocate.")}</article>
    <aside><a href="/c">Related Sidebar Link</a></aside><footer>Copyright Footer Text</footer></body></html>`;

  test("keeps the article and the title, drops navigation", async () => {
    const out = await extract(utf8(page), { contentType: "text/html; charset=utf-8" });
    expect(out).toMatchObject({ kind: "html", title: "Field Notes" });
    for (const kept of ["Owls hunt at night.", "Foxes den in spring.", "Bats echolocate."])
      expect(out.text).toContain(kept);
    for (const dropped of ["Menu Alpha", "Site Header Link", "Related Sidebar Link", "Copyright Footer Text"]) {
      expect(out.text).not.toContain(dropped);
    }
  });

  test("falls back to the body text of a page Readability finds nothing in", async () => {
    const out = await extract(utf8("<ul><li>Only a list</li></ul><script>var x = 1;</script>"), { fileName: "x.html" });
    expect(out).toEqual({ kind: "html", text: "Only a list" });
  });
});

describe("text formats", () => {
  test("markdown is kept as is", async () => {
    const md = "# Title\r\n\r\nSome *text*.\n";
    expect(await extract(utf8(md), { fileName: "notes.md" })).toEqual({ kind: "markdown", text: md });
  });

  test("csv rows keep their header names, quoted fields included", async () => {
    const csv = 'name,role,quote\nAda,engineer,"said ""hi"", left"\nGrace,admiral,\n';
    const out = await extract(utf8(csv), { contentType: "text/csv" });
    expect(out).toEqual({
      kind: "csv",
      text: 'name: Ada; role: engineer; quote: said "hi", left\nname: Grace; role: admiral',
    });
  });

  test("json records keep field names and nested paths", async () => {
    const json = JSON.stringify({
      data: [
        { name: "Ada", role: "engineer", team: { city: "London" } },
        { name: "Grace", tags: ["navy", "cobol"] },
      ],
    });
    const out = await extract(utf8(json), { url: "https://api.example.com/people.json" });
    expect(out).toEqual({
      kind: "json",
      text: "name: Ada\nrole: engineer\nteam.city: London\n\nname: Grace\ntags: navy, cobol",
    });
  });

  test("invalid json is an extraction error that names neither the parser nor its words", async () => {
    const err = (await rejection(utf8("{nope"), { contentType: "application/json" })) as ExtractionError;
    expect(err.message).toBe("could not read the JSON: it is neither valid JSON nor JSON Lines");
    expect(err.detail).toMatch(/JSON Parse error/);
  });

  test("plain text loses its BOM and keeps CRLF", async () => {
    const out = await extract(new Uint8Array([0xef, 0xbb, 0xbf, ...utf8("héllo\r\nworld")]), {});
    expect(out).toEqual({ kind: "text", text: "héllo\r\nworld" });
  });

  test("whitespace only is 'no text found'", async () => {
    expect((await rejection(utf8("  \n\t "), { fileName: "a.txt" })).message).toBe("no text found in text");
  });
});

describe("unsupported content", () => {
  const cases: [string, Uint8Array, object, RegExp][] = [
    [
      // PNG, JPEG, TIFF and WebP are read by OCR (test/ocr.test.ts); other images are not.
      "a GIF header",
      new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0, 0, 0]),
      {},
      /unsupported file type: image\/gif \(GIF image\)/,
    ],
    [
      "random binary with NULs",
      new Uint8Array([0x13, 0x37, 0, 0xfe, 0x42, 0, 0x99, 0x01]),
      {},
      /unsupported file type: application\/octet-stream \(binary data\)/,
    ],
    [
      "an image content type",
      utf8("GIF-like"),
      { contentType: "image/x-icon" },
      /unsupported file type: image\/x-icon/,
    ],
    ["a .pdf name without a PDF inside", utf8("hello"), { fileName: "a.pdf" }, /not a valid pdf file/],
  ];
  test.each(cases)("%s", async (_, bytes, hints, message) => {
    expect((await rejection(bytes, hints)).message).toMatch(message);
  });

  test("a zip that is not a docx names its type", async () => {
    const zip = new JSZip().file("readme.txt", "hi");
    const bytes = await zip.generateAsync({ type: "uint8array" });
    expect((await rejection(bytes)).message).toBe("unsupported file type: application/zip (ZIP archive)");
  });
});

describe("deeply nested json", () => {
  const nest = (depth: number) => `${"[".repeat(depth)}"deep value"${"]".repeat(depth)}`;
  const objects = (depth: number) => `${'{"k":'.repeat(depth)}"deep value"${"}".repeat(depth)}`;
  const refused: [string, string][] = [
    ["arrays 200,000 levels deep", nest(200_000)],
    ["objects 200,000 levels deep", objects(200_000)],
    ["arrays 1,001 levels deep", nest(1001)],
    ["JSON Lines with one line 5,000 levels deep", `{"a":1}\n${nest(5000)}\n`],
    ["unbalanced brackets 200,000 levels deep", "[".repeat(200_000)],
  ];
  for (const [label, json] of refused) {
    test(`${label} is an extraction error that says so`, async () => {
      const err = await rejection(utf8(json), { fileName: "deep.json" });
      expect(err.message).toBe("JSON nested deeper than 1,000 levels");
    });
  }
  const accepted: [string, string, string][] = [
    ["arrays 1,000 levels deep", nest(1000), `${"[0]".repeat(998)}: deep value`],
    ["objects 1,000 levels deep", objects(1000), `${Array(1000).fill("k").join(".")}: deep value`],
    ["brackets inside strings", JSON.stringify({ s: "[".repeat(5000) }), `s: ${"[".repeat(5000)}`],
    ["escaped quotes before brackets", JSON.stringify({ s: `\\"${"{".repeat(3000)}` }), `s: \\"${"{".repeat(3000)}`],
  ];
  for (const [label, json, text] of accepted) {
    test(`${label} is read`, async () => {
      const out = await extract(utf8(json), { fileName: "deep.json" });
      expect(out.text.endsWith(text)).toBe(true);
    });
  }
});

describe("text that expands past the limit", () => {
  const refused = async (bytes: Uint8Array, hints: Parameters<typeof extract>[1], says: RegExp) => {
    const err = await extract(bytes, hints).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExtractionError);
    expect((err as Error).message).toMatch(says);
  };

  test("json whose long nested keys repeat on every line: refused while it is built", async () => {
    // 100 keys of 100 characters over 6,000 small records: 60 KB that would be 60 million characters.
    let json = `[${Array.from({ length: 6000 }, (_, i) => `{"a":${i}}`).join(",")}]`;
    for (let k = 0; k < 100; k++) json = `{"${String(k).padStart(100, "k")}":${json}}`;
    expect(json.length).toBeLessThan(100_000);
    await refused(
      new TextEncoder().encode(json),
      { contentType: "application/json" },
      /^json too large: its text is over 50,000,000 characters/,
    );
  });

  test("a workbook whose cells all show one long shared string: refused before a row is joined", async () => {
    // One shared string of 30,000 characters in 2,000 cells: 60 million characters from a small file.
    const long = "x".repeat(30_000);
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(Array.from({ length: 2000 }, () => [long])), "S");
    const bytes = new Uint8Array(XLSX.write(book, { type: "array", bookType: "xlsx", bookSST: true }) as ArrayBuffer);
    expect(bytes.length).toBeLessThan(1_000_000);
    await refused(bytes, { fileName: "big.xlsx" }, /^xlsx too large: its text is over/);
  });

  test("any format: plain text past the limit", async () => {
    const text = new Uint8Array(50_000_100).fill(0x61);
    await refused(text, { contentType: "text/plain" }, /^text too large: its text is over/);
  });

  test("a slide the presentation lists many times is read once", async () => {
    const pptx = await makePptx([{ title: "Only slide", body: ["Once."] }]);
    const zip = await JSZip.loadAsync(pptx);
    const list = await zip.file("ppt/presentation.xml")!.async("string");
    const repeated = Array.from({ length: 500 }, (_, i) => `<p:sldId id="${1000 + i}" r:id="rId10"/>`).join("");
    zip.file("ppt/presentation.xml", list.replace("</p:sldIdLst>", `${repeated}</p:sldIdLst>`));
    const bytes = await zip.generateAsync({ type: "uint8array" });
    const { text } = await extract(bytes, { fileName: "deck.pptx" });
    expect(text.match(/Only slide/g)?.length).toBe(1);
  });
});

describe("text that declares no charset", () => {
  const latin1 = (s: string) => Uint8Array.from([...s].map((ch) => ch.charCodeAt(0)));
  const cp1252 = (s: string) =>
    Uint8Array.from(
      [...s].map(
        (ch) =>
          ({ "\u201c": 0x93, "\u201d": 0x94, "\u2019": 0x92, "\u2026": 0x85, "\u20ac": 0x80 })[ch] ?? ch.charCodeAt(0),
      ),
    );
  const utf16 = (s: string, le: boolean) => {
    const out = [le ? 0xff : 0xfe, le ? 0xfe : 0xff];
    for (const ch of s) {
      const c = ch.charCodeAt(0);
      out.push(...(le ? [c & 0xff, c >> 8] : [c >> 8, c & 0xff]));
    }
    return Uint8Array.from(out);
  };
  const FRENCH =
    "Le caf\u00e9 cr\u00e8me est servi \u00e0 la terrasse, pr\u00e8s de la for\u00eat o\u00f9 l'on a d\u00e9j\u00e0 mang\u00e9.";
  const cases: [string, Uint8Array, { fileName?: string; contentType?: string }, string][] = [
    ["a short Latin-1 text file", latin1("Caf\u00e9 cr\u00e8me"), { fileName: "menu.txt" }, "Caf\u00e9 cr\u00e8me"],
    ["a longer Latin-1 text file", latin1(FRENCH), { fileName: "menu.txt" }, FRENCH],
    ["Latin-1 served as text/plain without charset", latin1(FRENCH), { contentType: "text/plain" }, FRENCH],
    ["Latin-1 markdown", latin1(`# Menu\n\n${FRENCH}\n`), { fileName: "menu.md" }, `# Menu\n\n${FRENCH}\n`],
    [
      "windows-1252 smart quotes",
      cp1252("\u201cHello,\u201d she said \u2026 it\u2019s \u20ac5 for the caf\u00e9."),
      { fileName: "quote.txt" },
      "\u201cHello,\u201d she said \u2026 it\u2019s \u20ac5 for the caf\u00e9.",
    ],
    [
      "UTF-16LE with a BOM",
      utf16("Caf\u00e9 cr\u00e8me \u2013 \u65e5\u672c", true),
      { fileName: "a.txt" },
      "Caf\u00e9 cr\u00e8me \u2013 \u65e5\u672c",
    ],
    ["UTF-16BE with a BOM", utf16("Caf\u00e9 cr\u00e8me", false), { fileName: "a.txt" }, "Caf\u00e9 cr\u00e8me"],
    [
      "valid UTF-8 stays UTF-8",
      utf8("Caf\u00e9 cr\u00e8me \u00e9\u00e9\u00e9"),
      { fileName: "a.txt" },
      "Caf\u00e9 cr\u00e8me \u00e9\u00e9\u00e9",
    ],
    ["a declared charset wins", latin1("Caf\u00e9"), { contentType: "text/plain; charset=iso-8859-2" }, "Caf\u00e9"],
    [
      "an unknown declared charset is detected instead",
      latin1("Caf\u00e9 cr\u00e8me"),
      { contentType: "text/plain; charset=nonsense" },
      "Caf\u00e9 cr\u00e8me",
    ],
    [
      "Latin-1 CSV",
      latin1("plat,prix\nCaf\u00e9 cr\u00e8me,3\n"),
      { fileName: "menu.csv" },
      "plat: Caf\u00e9 cr\u00e8me; prix: 3",
    ],
  ];
  const RUSSIAN = "Привет, как дела? Это тестовый текст на русском языке для проверки кодировки.";
  const cp1251 = (t: string) =>
    Uint8Array.from([...t].map((ch) => (ch >= "А" && ch <= "я" ? ch.charCodeAt(0) - 0x410 + 0xc0 : ch.charCodeAt(0))));
  cases.push([
    "Russian in windows-1251 (the detector, not a fixed fallback)",
    cp1251(RUSSIAN),
    { fileName: "ru.txt" },
    RUSSIAN,
  ]);
  for (const [label, bytes, hints, text] of cases) {
    test(label, async () => {
      expect((await extract(bytes, hints)).text).toBe(text);
    });
  }
  test("HTML without a <meta charset> is detected; with one, the meta tag wins", async () => {
    const page = (meta: string) => `<html><head>${meta}<title>Menu</title></head><body><p>${FRENCH}</p></body></html>`;
    const bare = await extract(latin1(page("")), { contentType: "text/html" });
    expect(bare.text).toContain(FRENCH);
    const declared = await extract(utf8(page('<meta charset="utf-8">')), { contentType: "text/html" });
    expect(declared.text).toContain(FRENCH);
  });
});

describe("readers loaded on first use", () => {
  test("an ingestion worker's job module loads no format library until a document needs one", () => {
    // A fresh process: this file has loaded them all already.
    const script = `await import(${JSON.stringify(`${import.meta.dir}/../src/ingest/run/job.ts`)});
const libs = /node_modules[\\\\/](mammoth|linkedom|@e965[\\\\/]xlsx|unpdf|@mozilla[\\\\/]readability)[\\\\/]/;
console.log(JSON.stringify(Object.keys(require.cache).filter((k) => libs.test(k))));`;
    const run = Bun.spawnSync([process.execPath, "-e", script], { cwd: import.meta.dir });
    expect(run.stderr.toString()).toBe("");
    expect(JSON.parse(run.stdout.toString())).toEqual([]);
  });
});
