import { join } from "node:path";
import { PDFDocument, StandardFonts } from "pdf-lib";

/** The text drawn in test/fixtures/ocr/page.* (scripts/make-ocr-fixtures.ts). */
export const OCR_LINES = [
  "The quick brown fox jumps over the lazy dog.",
  "Scanned pages become searchable text.",
  "Invoice 4821 was paid on 12 March 2024.",
];

/** Character error rate: edit distance over the expected length, after collapsing blanks. */
export function charErrorRate(got: string, expected: string): number {
  const a = got.replace(/\s+/g, " ").trim();
  const b = expected.replace(/\s+/g, " ").trim();
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]! / b.length;
}

const FIXTURES = join(import.meta.dir, "..", "fixtures", "ocr");

/** The committed picture of OCR_LINES in one format: png, jpg, tif or webp; exif6.jpg is a sideways photo. */
export const ocrImage = (ext: "png" | "jpg" | "tif" | "webp" | "exif6.jpg"): Promise<Uint8Array> =>
  Bun.file(join(FIXTURES, ext === "exif6.jpg" ? "page-exif6.jpg" : `page.${ext}`)).bytes();

/**
 * A PDF of `pages`: a string is a page with that text in a text layer; "scan" is a page
 * with only the picture of OCR_LINES drawn across its width, as a scanner makes it.
 */
export async function makeScannedPdf(pages: (string | "scan")[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const picture = await doc.embedPng(await ocrImage("png"));
  for (const p of pages) {
    const page = doc.addPage([612, 792]);
    if (p !== "scan") page.drawText(p, { x: 50, y: 700, font, size: 12 });
    else {
      const height = (612 * picture.height) / picture.width;
      page.drawImage(picture, { x: 0, y: 792 - height, width: 612, height });
    }
  }
  return doc.save();
}

/**
 * Text in languages whose OCR data is not built in, drawn in test/fixtures/ocr/page-<lang>.png
 * (scripts/make-ocr-cjk-fixtures.ts), keyed by Tesseract language name.
 */
export const OCR_LINES_BY_LANGUAGE = {
  chi_sim: ["北京是中国的首都。", "长城有两千多年的历史。", "扫描的页面变成可以搜索的文字。"],
  jpn: ["東京は日本の首都です。", "富士山は日本で一番高い山です。", "スキャンした文書を検索できます。"],
} as const;

export type OcrFixtureLanguage = keyof typeof OCR_LINES_BY_LANGUAGE;

/** The committed picture of OCR_LINES_BY_LANGUAGE[lang], a PNG. */
export const ocrImageIn = (lang: OcrFixtureLanguage): Promise<Uint8Array> =>
  Bun.file(join(FIXTURES, `page-${lang}.png`)).bytes();
