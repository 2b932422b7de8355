/** Decides what a document is: magic bytes first, then the content type, then the file extension. */
import { ExtractionError, unsupported } from "./errors";
import type { Hints } from "./hints";

export { unsupported } from "./errors";
import { imageFormat } from "./image";
import { isRtf } from "./rtf";
import { looksBinary } from "./text";
import { isZip } from "./zip";
import { EXTENSION_FORMATS } from "./zip-format";

export type Kind = "pdf" | "image" | "zip" | "rtf" | "html" | "markdown" | "csv" | "tsv" | "json" | "text";

/** Known binary formats: [offset, signature, content type, label]. */
const SIGNATURES: [number, string, string, string][] = [
  [0, "\x89PNG", "image/png", "PNG image"],
  [0, "\xff\xd8\xff", "image/jpeg", "JPEG image"],
  [0, "GIF8", "image/gif", "GIF image"],
  [8, "WEBP", "image/webp", "WebP image"],
  [4, "ftyp", "video/mp4", "MP4/HEIC media"],
  [0, "ID3", "audio/mpeg", "MP3 audio"],
  [0, "OggS", "audio/ogg", "Ogg media"],
  [0, "\x7fELF", "application/x-executable", "ELF executable"],
  [0, "MZ\x90\x00", "application/vnd.microsoft.portable-executable", "Windows executable"],
  [0, "\x1f\x8b", "application/gzip", "gzip archive"],
  [0, "7z\xbc\xaf\x27\x1c", "application/x-7z-compressed", "7-Zip archive"],
  [0, "Rar!\x1a\x07", "application/vnd.rar", "RAR archive"],
  [0, "\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "application/x-cfb", "legacy or password-protected Office document"],
  [0, "\x00asm", "application/wasm", "WebAssembly module"],
];

const TYPES: Record<string, Kind> = {
  "application/pdf": "pdf",
  "text/html": "html",
  "application/xhtml+xml": "html",
  "text/markdown": "markdown",
  "text/x-markdown": "markdown",
  "text/csv": "csv",
  "application/csv": "csv",
  "text/tab-separated-values": "tsv",
  "application/json": "json",
  "application/x-ndjson": "json",
  "application/jsonl": "json",
  "application/rtf": "rtf",
  "text/rtf": "rtf",
  "application/epub+zip": "zip",
  "image/png": "image",
  "image/jpeg": "image",
  "image/tiff": "image",
  "image/webp": "image",
};

const EXTENSIONS: Record<string, Kind> = {
  ...Object.fromEntries(Object.keys(EXTENSION_FORMATS).map((ext) => [ext, "zip" as const])),
  pdf: "pdf",
  rtf: "rtf",
  html: "html",
  htm: "html",
  xhtml: "html",
  md: "markdown",
  markdown: "markdown",
  csv: "csv",
  tsv: "tsv",
  json: "json",
  jsonl: "json",
  ndjson: "json",
  txt: "text",
  text: "text",
  png: "image",
  jpg: "image",
  jpeg: "image",
  tif: "image",
  tiff: "image",
  webp: "image",
};

/** File name extensions ragd reads (the dashboard's file pickers list the same). */
export const READABLE_EXTENSIONS = Object.keys(EXTENSIONS);

const GENERIC = new Set(["", "text/plain", "application/octet-stream", "binary/octet-stream"]);

/** The kind of document, or ExtractionError naming the type when it is binary or unsupported. */
export function detectKind(bytes: Uint8Array, hints: Hints): Kind {
  if (isPdf(bytes)) return "pdf";
  if (isZip(bytes)) return "zip";
  if (isRtf(bytes)) return "rtf";
  if (imageFormat(bytes)) return "image";
  const signature = SIGNATURES.find(([at, sig]) => matches(bytes, at, sig));
  if (signature) throw unsupported(signature[2], signature[3]);
  const type = (hints.contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (looksBinary(bytes)) throw unsupported(GENERIC.has(type) ? "application/octet-stream" : type, "binary data");
  const claimed =
    TYPES[type] ??
    (OFFICE_TYPE.test(type) ? "zip" : undefined) ??
    (type.endsWith("+json") ? "json" : undefined) ??
    (GENERIC.has(type) ? fromExtension(hints) : undefined);
  // The bytes did not start as this kind does (checked above), so they are not one.
  if (claimed === "pdf" || claimed === "zip" || claimed === "rtf" || claimed === "image")
    throw new ExtractionError(`content is not a valid ${claimed === "zip" ? zipLabel(hints) : claimed} file`);
  if (claimed) return claimed;
  if (/^(image|audio|video|font|model)\//.test(type)) throw unsupported(type, "media");
  return sniffText(bytes) ?? "text";
}

function isPdf(bytes: Uint8Array): boolean {
  // The spec lets junk precede the header; readers look in the first KB.
  return latin1(bytes.subarray(0, 1024)).includes("%PDF-");
}

function matches(bytes: Uint8Array, at: number, sig: string): boolean {
  for (let i = 0; i < sig.length; i++) if (bytes[at + i] !== sig.charCodeAt(i)) return false;
  return true;
}

/** OOXML and OpenDocument content types: zips that ragd reads. */
const OFFICE_TYPE =
  /^application\/vnd\.(openxmlformats-officedocument\.|oasis\.opendocument\.|ms-(excel|powerpoint|word)\.[\w.]*macroenabled)/;

function fromExtension(hints: Hints): Kind | undefined {
  const ext = extensionOf(hints);
  return ext ? EXTENSIONS[ext] : undefined;
}

function extensionOf(hints: Hints): string | undefined {
  const path = hints.fileName ?? (hints.url ? safePath(hints.url) : "");
  return /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
}

/** What a file that should have been a zip claimed to be, for the error: `xlsx`, `epub`, or `zip`. */
function zipLabel(hints: Hints): string {
  const ext = extensionOf(hints);
  return ext && EXTENSION_FORMATS[ext] ? ext : "zip";
}

function safePath(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return "";
  }
}

function sniffText(bytes: Uint8Array): Kind | undefined {
  const head = latin1(bytes.subarray(0, 512))
    .replace(/^(\xef\xbb\xbf|\s)+/, "")
    .toLowerCase();
  if (/^<!doctype html|^<html[\s>]|^<head[\s>]|^<body[\s>]/.test(head)) return "html";
  return undefined;
}

const latin1 = (b: Uint8Array) => new TextDecoder("latin1").decode(b);
