/**
 * Text extraction: bytes plus hints in, `Extracted` out. One file per format; this one
 * only detects the kind and dispatches. Anything that cannot become text throws
 * ExtractionError, whose message names the type or the reason.
 *
 * The readers of PDF, office, e-book and HTML documents are imported on first use, not
 * with this file: their libraries (mammoth, linkedom, xlsx, pdf.js) took 0.4 s of CPU to
 * load from source in every ingestion worker's start, and most runs read plain text, or
 * one or two of the formats.
 */
import type { Extracted } from "../types";
import { csvToText } from "./csv";
import { detectKind } from "./detect";
import type { Hints } from "./hints";
import { ExtractionError, nestedTooDeeply, tooDeep } from "./errors";
import { extractImage } from "./image";
import { jsonToText } from "./json";
import type { Ocr } from "./ocr";
import { rtfToText } from "./rtf";
import { MAX_TEXT_CHARS, tooMuchText } from "./text-budget";
import { decodeText } from "./text";
import { readZipDirectory } from "./zip";
import { zipFormat } from "./zip-format";

export { ExtractionError } from "./errors";
export type { Hints } from "./hints";
export type { Ocr } from "./ocr";

/**
 * Extracts the text of a document. With `ocr`, images and scanned PDF pages are read by
 * OCR; without, images are refused and scanned pages yield nothing. `signal`: the job's
 * cancellation, which stops a PDF being read (the formats that bound their input by size
 * are read in one go).
 * @example const { text, kind, title } = await extract(bytes, { contentType: "application/pdf" });
 */
export async function extract(
  bytes: Uint8Array,
  hints: Hints = {},
  ocr?: Ocr,
  signal?: AbortSignal,
): Promise<Extracted> {
  const result = await extractByKind(bytes, hints, ocr, signal).catch((err: unknown) => {
    if (tooDeep(err)) throw nestedTooDeeply();
    throw err;
  });
  if (!result.text.trim()) throw new ExtractionError(`no text found in ${result.kind}`);
  if (result.text.length > MAX_TEXT_CHARS) throw tooMuchText(result.kind);
  return result;
}

async function extractByKind(bytes: Uint8Array, hints: Hints, ocr?: Ocr, signal?: AbortSignal): Promise<Extracted> {
  const kind = detectKind(bytes, hints);
  switch (kind) {
    case "pdf": {
      const { ocrPages, ...pdf } = await (await import("./pdf")).extractPdf(bytes, ocr, signal);
      return ocrPages && ocr ? { kind, ...pdf, ocr: { languages: ocr.languages, pages: ocrPages } } : { kind, ...pdf };
    }
    case "image": {
      const { text, pages } = await extractImage(bytes, ocr);
      return { kind, text, ocr: { languages: ocr!.languages, pages } };
    }
    case "zip":
      return extractZip(bytes, hints);
    case "rtf":
      return { kind, text: rtfToText(bytes) };
    case "html": {
      const { text, title } = (await import("./html")).extractHtml(decodeText(bytes, hints.contentType));
      return title ? { kind, text, title } : { kind, text };
    }
    case "csv":
    case "tsv":
      return { kind: "csv", text: csvToText(decodeText(bytes, hints.contentType), kind === "tsv" ? "\t" : undefined) };
    case "json":
      return { kind, text: jsonToText(decodeText(bytes, hints.contentType)) };
    default:
      return { kind, text: decodeText(bytes, hints.contentType) };
  }
}

/** Zip limits are checked on the directory before anything is inflated, whatever the format. */
async function extractZip(bytes: Uint8Array, hints: Hints): Promise<Extracted> {
  const zip = readZipDirectory(bytes);
  const kind = zipFormat(bytes, zip, hints);
  switch (kind) {
    case "docx":
      return { kind, text: await (await import("./docx")).extractDocx(bytes, zip) };
    case "xlsx":
    case "ods":
      return { kind, text: (await import("./sheet")).extractSheets(bytes, zip, kind) };
    case "pptx":
      return { kind, text: (await import("./slides")).extractPptx(bytes, zip) };
    case "odp":
      return { kind, text: (await import("./odf")).extractOdp(bytes, zip) };
    case "odt":
      return { kind, text: (await import("./odf")).extractOdt(bytes, zip) };
    case "epub": {
      const { text, title } = (await import("./epub")).extractEpub(bytes, zip);
      return title ? { kind, text, title } : { kind, text };
    }
  }
}
