/**
 * OCR (docs/API.md, "OCR"): pictures of a known text, in each image format and inside
 * PDFs, read through the real OCR thread and Tesseract core; only pages without a text
 * layer are recognised; a page past its time bound fails with a sentence, not a hang;
 * language data comes from the data directory's ocr folder.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { extract, type Ocr } from "../src/ingest/extract/index";
import { OcrThread } from "../src/ingest/ocr/client";
import { tempDir } from "./support/app";
import { charErrorRate, makeScannedPdf, OCR_LINES, ocrImage } from "./support/ocr-text";

const thread = new OcrThread();
afterAll(() => thread.stop());

const TEXT = OCR_LINES.join("\n");
/** The text drawn is clean type at about 32 px: nearly every character must come back. */
const MAX_CER = 0.03;

interface Seen {
  labels: string[];
  told: [number, number][];
}

/** OCR as a job gives it, recording which images it was asked to read and the progress told. */
function ocrWith(opts: { languages?: string[]; dataDir?: string; timeoutMs?: number } = {}): Ocr & Seen {
  const languages = opts.languages ?? ["eng"];
  const seen: Seen = { labels: [], told: [] };
  return Object.assign(seen, {
    languages,
    recognize: (image: Uint8Array, label: string, more?: { dpi?: number; exif?: number }) => {
      seen.labels.push(label);
      const job = { image, languages, dataDir: opts.dataDir ?? tempDir(), ...more };
      return thread.run(job, label, opts.timeoutMs ?? 60_000, new AbortController().signal);
    },
    progress: (done: number, total: number) => void seen.told.push([done, total]),
  });
}

describe("images", () => {
  for (const ext of ["png", "jpg", "tif", "webp"] as const) {
    test(`a ${ext} picture of text is read by OCR within ${MAX_CER * 100}% character errors`, async () => {
      const ocr = ocrWith();
      const got = await extract(await ocrImage(ext), { fileName: `scan.${ext}` }, ocr);
      expect(got.kind).toBe("image");
      expect(got.ocr).toEqual({ languages: ["eng"], pages: 1 });
      expect(charErrorRate(got.text, TEXT)).toBeLessThan(MAX_CER);
      expect(ocr.told).toEqual([
        [0, 1],
        [1, 1],
      ]);
    }, 60_000);
  }

  test("a sideways JPEG is turned upright by its EXIF orientation before OCR", async () => {
    const got = await extract(await ocrImage("exif6.jpg"), { fileName: "photo.jpg" }, ocrWith());
    expect(charErrorRate(got.text, TEXT)).toBeLessThan(MAX_CER);
  }, 60_000);

  test("a picture larger than OCR takes is refused from its header, before any recognition", async () => {
    const png = await ocrImage("png");
    const huge = new Uint8Array(png);
    new DataView(huge.buffer).setUint32(16, 10_000);
    new DataView(huge.buffer).setUint32(20, 10_000);
    const ocr = ocrWith();
    await expect(extract(huge, { fileName: "huge.png" }, ocr)).rejects.toThrow(
      "the PNG image is 10000×10000 pixels, more than OCR takes (40 megapixels)",
    );
    expect(ocr.labels).toEqual([]);
  });

  test("bytes that claim to be an image but are not fail with a sentence", async () => {
    const bytes = new TextEncoder().encode("not a picture at all");
    await expect(extract(bytes, { contentType: "image/png" }, ocrWith())).rejects.toThrow(
      "content is not a valid image file",
    );
  });
});

describe("PDF", () => {
  test("a PDF whose only page is a scanned image is read by OCR", async () => {
    const ocr = ocrWith();
    const got = await extract(await makeScannedPdf(["scan"]), { fileName: "scan.pdf" }, ocr);
    expect(got.kind).toBe("pdf");
    expect(got.ocr).toEqual({ languages: ["eng"], pages: 1 });
    expect(charErrorRate(got.text, TEXT)).toBeLessThan(MAX_CER);
  }, 60_000);

  test("a mixed PDF recognises only the page without a text layer", async () => {
    const ocr = ocrWith();
    const layer = "Harbour permits renew every March.";
    const got = await extract(await makeScannedPdf([layer, "scan", layer]), { fileName: "mixed.pdf" }, ocr);
    expect(ocr.labels).toEqual(["page 2"]);
    expect(ocr.told).toEqual([
      [0, 1],
      [1, 1],
    ]);
    expect(got.ocr).toEqual({ languages: ["eng"], pages: 1 });
    const [first, ...rest] = got.text.trim().split("\n");
    expect(first).toBe(layer);
    expect(rest.at(-1)).toBe(layer);
    expect(charErrorRate(rest.slice(0, -1).join("\n"), TEXT)).toBeLessThan(MAX_CER);
  }, 60_000);

  test("a PDF with a text layer on every page runs no OCR", async () => {
    const ocr = ocrWith();
    const got = await extract(await makeScannedPdf(["One page.", "Two pages."]), {}, ocr);
    expect(ocr.labels).toEqual([]);
    expect(got.ocr).toBeUndefined();
  });
});

describe("bounds and language data", () => {
  test("a page past its time bound fails with a clear message, and the next page still runs", async () => {
    thread.stop(); // a cold thread: loading the core alone takes longer than 100 ms
    const started = performance.now();
    await expect(extract(await ocrImage("png"), {}, ocrWith({ timeoutMs: 100 }))).rejects.toThrow(
      "OCR of the image took longer than 100 ms and was stopped (RAGD_OCR_PAGE_TIMEOUT_MS)",
    );
    expect(performance.now() - started).toBeLessThan(5_000);
    const got = await extract(await ocrImage("webp"), {}, ocrWith());
    expect(charErrorRate(got.text, TEXT)).toBeLessThan(MAX_CER);
  }, 60_000);

  test("a cancelled job stops its page at once (the thread is ended), and the next page still runs", async () => {
    thread.stop();
    const abort = new AbortController();
    const image = await ocrImage("png");
    const started = performance.now();
    const running = thread.run({ image, languages: ["eng"], dataDir: tempDir() }, "page 1", 60_000, abort.signal);
    setTimeout(() => abort.abort(), 50);
    await expect(running).rejects.toThrow("cancelled");
    expect(performance.now() - started).toBeLessThan(2_000);
    const got = await extract(await ocrImage("jpg"), {}, ocrWith());
    expect(charErrorRate(got.text, TEXT)).toBeLessThan(MAX_CER);
  }, 60_000);

  test("a language's data is read from <data dir>/ocr/<lang>.traineddata; a missing one is named", async () => {
    const dataDir = tempDir();
    mkdirSync(join(dataDir, "ocr"));
    // The built-in English under another name stands in for a language the user adds.
    const eng = gunzipSync(readFileSync(require.resolve("@tesseract.js-data/eng/4.0.0_best_int/eng.traineddata.gz")));
    writeFileSync(join(dataDir, "ocr", "mine.traineddata"), eng);
    const got = await extract(await ocrImage("png"), {}, ocrWith({ languages: ["mine"], dataDir }));
    expect(got.ocr).toEqual({ languages: ["mine"], pages: 1 });
    expect(charErrorRate(got.text, TEXT)).toBeLessThan(MAX_CER);
    await expect(extract(await ocrImage("png"), {}, ocrWith({ languages: ["eng", "deu"], dataDir }))).rejects.toThrow(
      'OCR of the image: OCR language data "deu" is missing: place deu.traineddata in the data directory\'s ocr folder',
    );
  }, 60_000);
});
