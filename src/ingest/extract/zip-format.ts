/**
 * Which document a zip holds. ODF and EPUB name themselves in a `mimetype` entry, OOXML in
 * the content type of its main part in `[Content_Types].xml`; files that lack these (some
 * producers skip them) are known by their main part, then by the file name's extension.
 */
import type { Hints } from "./hints";
import { unsupported } from "./errors";
import { inflateEntry, type ZipDirectory } from "./zip";

export type ZipFormat = "docx" | "xlsx" | "pptx" | "odt" | "ods" | "odp" | "epub";

const MIMETYPES: Record<string, ZipFormat> = {
  "application/vnd.oasis.opendocument.text": "odt",
  "application/vnd.oasis.opendocument.text-template": "odt",
  "application/vnd.oasis.opendocument.spreadsheet": "ods",
  "application/vnd.oasis.opendocument.spreadsheet-template": "ods",
  "application/vnd.oasis.opendocument.presentation": "odp",
  "application/vnd.oasis.opendocument.presentation-template": "odp",
  "application/epub+zip": "epub",
};

/** Main-part content types of OOXML packages, macro-enabled and template variants included. */
const MAIN_PARTS: [RegExp, ZipFormat][] = [
  [/wordprocessingml\.(document|template)\.main\+xml|ms-word\.(document|template)\.macroEnabled/i, "docx"],
  [/spreadsheetml\.(sheet|template)\.main\+xml|ms-excel\.(sheet|template)\.macroEnabled\.main/i, "xlsx"],
  [
    /presentationml\.(presentation|slideshow|template)\.main\+xml|ms-powerpoint\.(presentation|slideshow|template)\.macroEnabled\.main/i,
    "pptx",
  ],
];

const MAIN_PART_NAMES: [string, ZipFormat][] = [
  ["word/document.xml", "docx"],
  ["xl/workbook.xml", "xlsx"],
  ["ppt/presentation.xml", "pptx"],
  ["META-INF/container.xml", "epub"],
];

export const EXTENSION_FORMATS: Record<string, ZipFormat> = {
  docx: "docx",
  docm: "docx",
  xlsx: "xlsx",
  xlsm: "xlsx",
  pptx: "pptx",
  pptm: "pptx",
  odt: "odt",
  ods: "ods",
  odp: "odp",
  epub: "epub",
};

const small = (bytes: Uint8Array, zip: ZipDirectory, name: string, max: number): string | undefined => {
  const entry = zip.get(name);
  if (!entry || entry.size > max) return undefined;
  return new TextDecoder().decode(inflateEntry(bytes, entry));
};

/** The document format of a zip whose directory has passed the zip limits; ExtractionError when none. */
export function zipFormat(bytes: Uint8Array, zip: ZipDirectory, hints: Hints): ZipFormat {
  const mimetype = small(bytes, zip, "mimetype", 200)?.trim();
  if (mimetype && MIMETYPES[mimetype]) return MIMETYPES[mimetype];
  if (mimetype?.startsWith("application/vnd.oasis.opendocument."))
    throw unsupported(mimetype, "OpenDocument file of a kind ragd does not read");
  const types = small(bytes, zip, "[Content_Types].xml", 1024 * 1024);
  const byType = types ? MAIN_PARTS.find(([re]) => re.test(types))?.[1] : undefined;
  if (byType) return byType;
  const byPart = MAIN_PART_NAMES.find(([name]) => zip.has(name))?.[1];
  if (byPart) return byPart;
  if (zip.has("content.xml") && zip.has("META-INF/manifest.xml")) {
    const ext = extensionOf(hints);
    if (ext === "odt" || ext === "ods" || ext === "odp") return ext;
  }
  throw unsupported("application/zip", "ZIP archive");
}

function extensionOf(hints: Hints): ZipFormat | undefined {
  const name = hints.fileName ?? hints.url ?? "";
  const ext = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(name)?.[1]?.toLowerCase();
  return ext ? EXTENSION_FORMATS[ext] : undefined;
}
