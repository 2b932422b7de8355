/**
 * Text extraction: bytes plus hints in, `Extracted` out. One file per format; this one
 * only detects the kind and dispatches. Anything that cannot become text throws
 * ExtractionError, whose message names the type or the reason.
 */
import type { Extracted } from "../types";
import { csvToText } from "./csv";
import { detectKind, unsupported, type Hints } from "./detect";
import { extractDocx } from "./docx";
import { ExtractionError } from "./errors";
import { extractHtml } from "./html";
import { jsonToText } from "./json";
import { extractPdf } from "./pdf";
import { decodeText } from "./text";
import { readZipDirectory } from "./zip";

export { ExtractionError } from "./errors";
export type { Hints } from "./detect";

/**
 * Extracts the text of a document.
 * @example const { text, kind, title } = await extract(bytes, { contentType: "application/pdf" });
 */
export async function extract(bytes: Uint8Array, hints: Hints = {}): Promise<Extracted> {
  const result = await extractByKind(bytes, hints);
  if (!result.text.trim()) throw new ExtractionError(`no text found in ${result.kind}`);
  return result;
}

async function extractByKind(bytes: Uint8Array, hints: Hints): Promise<Extracted> {
  const kind = detectKind(bytes, hints);
  switch (kind) {
    case "pdf":
      return { kind, ...(await extractPdf(bytes)) };
    case "zip":
      return { kind: "docx", text: await extractZip(bytes) };
    case "html": {
      const { text, title } = extractHtml(decodeText(bytes, hints.contentType));
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

/** Zip limits are checked on the directory before anything is inflated; only DOCX is text. */
async function extractZip(bytes: Uint8Array): Promise<string> {
  const zip = readZipDirectory(bytes);
  if (zip.has("word/document.xml")) return extractDocx(bytes, zip);
  if (zip.has("xl/workbook.xml"))
    throw unsupported("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "XLSX spreadsheet");
  if (zip.has("ppt/presentation.xml"))
    throw unsupported("application/vnd.openxmlformats-officedocument.presentationml.presentation", "PPTX presentation");
  if (zip.has("content.xml") && zip.has("mimetype"))
    throw unsupported("application/vnd.oasis.opendocument", "OpenDocument file");
  if (zip.has("META-INF/container.xml")) throw unsupported("application/epub+zip", "EPUB book");
  throw unsupported("application/zip", "ZIP archive");
}
