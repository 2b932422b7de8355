/**
 * What reading a PDF may cost (docs/API.md, "What text is indexed"): a PDF of more pages
 * than the limit is refused by its count before any page is read; a picture whose
 * declared size is over OCR's limit is never decoded; a cancelled job (its source
 * deleted) stops reading; pdf.js work past its time budget is stopped. The hostile PDFs
 * are written byte by byte, as an attacker would.
 */
import { afterAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { createEmbedder } from "../src/embed/index";
import { extract, type Ocr } from "../src/ingest/extract/index";
import { PdfBudget } from "../src/ingest/extract/pdf-bounds";
import { runJob } from "../src/ingest/run/job";
import type { Job, JobEvent } from "../src/ingest/job-types";
import { OcrThread } from "../src/ingest/ocr/client";
import { tempDir } from "./support/app";

const ocrThread = new OcrThread();
afterAll(() => ocrThread.stop());

const ascii = (s: string) => new TextEncoder().encode(s);

/** A PDF of these objects (numbered from 1, the first the catalog) with a valid cross-reference table. */
function pdfOf(objects: Uint8Array[]): Uint8Array {
  const parts: Uint8Array[] = [ascii("%PDF-1.4\n")];
  let at = parts[0]!.length;
  const offsets = objects.map((body, i) => {
    const start = at;
    for (const p of [ascii(`${i + 1} 0 obj\n`), body, ascii("\nendobj\n")]) {
      parts.push(p);
      at += p.length;
    }
    return start;
  });
  const rows = offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("");
  const size = objects.length + 1;
  parts.push(ascii(`xref\n0 ${size}\n0000000000 65535 f \n${rows}trailer\n<< /Size ${size} /Root 1 0 R >>\n`));
  parts.push(ascii(`startxref\n${at}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/** `pages` empty pages in one flat /Kids array (2 MB for 20,000). */
function emptyPages(pages: number): Uint8Array {
  const kids = Array.from({ length: pages }, (_, i) => `${i + 3} 0 R`).join(" ");
  const page = ascii("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>");
  return pdfOf([
    ascii("<< /Type /Catalog /Pages 2 0 R >>"),
    ascii(`<< /Type /Pages /Count ${pages} /Kids [${kids}] >>`),
    ...Array.from({ length: pages }, () => page),
  ]);
}

/** One page drawing one grey picture that declares `width`×`height` pixels (its data is a few bytes). */
function pictureOf(width: number, height: number): Uint8Array {
  const draw = ascii("q 612 0 0 792 0 0 cm /Im1 Do Q");
  const data = deflateSync(new Uint8Array(1000));
  const head = `/Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceGray`;
  return pdfOf([
    ascii("<< /Type /Catalog /Pages 2 0 R >>"),
    ascii("<< /Type /Pages /Count 1 /Kids [3 0 R] >>"),
    ascii(
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 5 0 R >> >> /Contents 4 0 R >>",
    ),
    Buffer.concat([ascii(`<< /Length ${draw.length} >>\nstream\n`), draw, ascii("\nendstream")]),
    Buffer.concat([
      ascii(`<< ${head} /BitsPerComponent 8 /Filter /FlateDecode /Length ${data.length} >>\nstream\n`),
      data,
      ascii("\nendstream"),
    ]),
  ]);
}

/** OCR that records what it is asked to read and answers with a fixed text. */
function ocrSeeing(): Ocr & { labels: string[] } {
  const labels: string[] = [];
  return {
    labels,
    languages: ["eng"],
    recognize: async (_image, label) => {
      labels.push(label);
      return "Recognised words.";
    },
    progress: () => {},
  };
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => "resolved",
    (e: Error) => e.message,
  );

test("a PDF of 20,000 empty pages is refused by its page count before any page is read", async () => {
  expect(await failure(extract(emptyPages(20_000), { fileName: "many.pdf" }, ocrSeeing()))).toBe(
    "pdf too large: 20000 pages (limit 5000); split it into smaller files",
  );
}, 30_000);

test("a page's picture that declares 20000×20000 pixels is never decoded nor recognised", async () => {
  const ocr = ocrSeeing();
  // Before: decoded first (21 s, 1.7 GB), then refused by its decoded size.
  expect(await failure(extract(pictureOf(20_000, 20_000), { fileName: "huge.pdf" }, ocr))).toBe("no text found in pdf");
  expect(ocr.labels).toEqual([]);
  // Within the limit, the same page's picture is decoded and recognised.
  const small = await extract(pictureOf(2_000, 2_000), { fileName: "small.pdf" }, ocr);
  expect(small.text).toBe("Recognised words.");
  expect(ocr.labels).toEqual(["page 1"]);
}, 60_000);

/** A job of a stored PDF file, as the pool sends it; nothing is embedded before its text is read. */
function pdfJob(bytes: Uint8Array): Job {
  const location = join(tempDir(), "source.pdf");
  writeFileSync(location, bytes);
  return {
    jobId: "pdf-job",
    document: {
      id: "pdf-doc",
      type: "file",
      content: null,
      url: null,
      fileName: "source.pdf",
      fileSize: bytes.length,
      fileLocation: location,
    },
    chunking: { strategy: "paragraph", size: 200, overlap: 0 },
    model: "ollama/all-minilm",
    language: "legacy",
    embed: { ollamaUrl: "http://127.0.0.1:9", openaiUrl: null, openaiKey: null, batchSize: 8 },
    fetch: { allow: [], deny: [], maxBytes: 1024, timeoutMs: 1000 },
    ocr: { languages: ["eng"], pageTimeoutMs: 60_000, dataDir: tempDir() },
  };
}

test("a job whose source is deleted stops reading its PDF", async () => {
  // 4,000 empty pages: allowed, and tens of seconds of pdf.js work on a busy machine.
  const job = pdfJob(emptyPages(4_000));
  const embedder = createEmbedder(job.model, { ...job.embed, concurrency: 1, timeoutMs: 1000, attempts: 1 });
  const abort = new AbortController();
  const events: JobEvent[] = [];
  const running = runJob(job, (e) => events.push(e), {
    embedder,
    signal: abort.signal,
    committed: async () => {},
    ocr: ocrThread,
  });
  // The worker aborts a job's signal when the main thread cancels it (pool.ts, worker.ts).
  setTimeout(() => abort.abort(), 200);
  await running;
  expect(events.map((e) => (e.type === "error" ? e.message : e.type))).toEqual(["cancelled"]);
}, 60_000);

test("pdf.js work past the budget is stopped with a sentence", async () => {
  const budget = new PdfBudget(undefined, 300);
  await budget.step(async () => "quick");
  expect(await failure(budget.step(() => new Promise(() => {})))).toBe(
    "pdf took longer than 0.3 seconds to read and was stopped",
  );
});
