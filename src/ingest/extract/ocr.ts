/**
 * What extractors need to read text out of pictures (docs/API.md, "OCR"). The job gives
 * it (run/job.ts); the recognition itself runs in the ingestion worker's OCR thread.
 */
import { ExtractionError } from "./errors";

export interface Ocr {
  /** Language data names, in Tesseract's order of preference. */
  languages: string[];
  /**
   * Recognises one image, an encoded file or PNM; `label` ("page 3") names it in errors.
   * `dpi`: the resolution to assume; `exif`: the EXIF orientation (1–8) to turn it upright by.
   */
  recognize(image: Uint8Array, label: string, opts?: { dpi?: number; exif?: number }): Promise<string>;
  /** Pages recognised so far of those to recognise. */
  progress(done: number, total: number): void;
}

/** What the source records: OCR ran, with which language data, on how many pages. */
export interface OcrNote {
  languages: string[];
  pages: number;
}

/**
 * Largest image OCR takes, in pixels: an A4 page scanned at 600 dpi is 35 megapixels.
 * Recognition needs several bytes per pixel, so this bounds a page's memory.
 */
export const MAX_OCR_PIXELS = 40_000_000;

/** Refuses an image above MAX_OCR_PIXELS, naming its size. */
export function checkPixels(width: number, height: number, what: string): void {
  if (width * height > MAX_OCR_PIXELS)
    throw new ExtractionError(
      `${what} is ${width}×${height} pixels, more than OCR takes (${MAX_OCR_PIXELS / 1_000_000} megapixels)`,
    );
}

/** Raw pixels (1 gray, 3 RGB or 4 RGBA channels per pixel) as a binary PNM file, which the OCR core reads. */
export function toPnm(
  data: Uint8Array | Uint8ClampedArray,
  width: number,
  height: number,
  channels: number,
): Uint8Array {
  const gray = channels === 1;
  const header = new TextEncoder().encode(`${gray ? "P5" : "P6"}\n${width} ${height}\n255\n`);
  const out = new Uint8Array(header.length + width * height * (gray ? 1 : 3));
  out.set(header);
  if (channels !== 4) {
    out.set(data.subarray(0, width * height * channels), header.length);
    return out;
  }
  // RGBA: the alpha goes (a scan has none worth keeping).
  for (let i = 0, o = header.length; i < width * height * 4; i += 4, o += 3) {
    out[o] = data[i]!;
    out[o + 1] = data[i + 1]!;
    out[o + 2] = data[i + 2]!;
  }
  return out;
}
