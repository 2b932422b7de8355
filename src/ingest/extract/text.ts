/**
 * Bytes to a string. The charset comes from a byte-order mark, then the content type, then
 * an HTML `<meta charset>`; bytes that declare none are UTF-8 when they are valid UTF-8,
 * and otherwise whatever the detector finds (docs/API.md, "What text is indexed").
 */
import { analyse } from "chardet";

/** How much of an undeclared, non-UTF-8 document the detector reads. */
const SAMPLE_BYTES = 64 * 1024;
/** Western European text is what undeclared legacy bytes most often are (as browsers assume). */
const FALLBACK = "windows-1252";
const WESTERN_MARGIN = 20;
const EMPTY = new Uint8Array();

/** Decodes text by its BOM, its declared charset, or what its bytes show; drops the BOM. */
export function decodeText(bytes: Uint8Array, contentType?: string): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return decode(bytes.subarray(3), "utf-8")!;
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return decode(bytes.subarray(2), "utf-16le")!;
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return decode(bytes.subarray(2), "utf-16be")!;
  const declared = charsetOf(contentType) ?? sniffMetaCharset(bytes);
  const asDeclared = declared ? decode(bytes, declared) : undefined;
  if (asDeclared !== undefined) return asDeclared;
  // Valid UTF-8 stays UTF-8: a detector would second-guess short or mostly-ASCII text.
  const utf8 = decode(bytes, "utf-8", true);
  if (utf8 !== undefined) return utf8;
  return decode(bytes, guessCharset(bytes)) ?? decode(bytes, FALLBACK)!;
}

/** True when the bytes look binary: a NUL in the first 8 KB, unless a UTF-16 BOM explains it. */
export function looksBinary(bytes: Uint8Array): boolean {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) return false;
  return bytes.subarray(0, 8192).includes(0);
}

/** The text in `charset`; undefined when the label is unknown or (with `fatal`) the bytes do not fit it. */
function decode(bytes: Uint8Array, charset: string, fatal = false): string | undefined {
  try {
    return new TextDecoder(charset, { ignoreBOM: true, fatal }).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * The detector's best guess for bytes that are neither marked nor UTF-8. On short text its
 * scores are close, so a Western European reading within WESTERN_MARGIN of the best wins.
 */
function guessCharset(bytes: Uint8Array): string {
  // ASCII and the Unicode forms are ruled out already: no BOM, and not valid UTF-8.
  const usable = analyse(bytes.subarray(0, SAMPLE_BYTES)).filter(
    (m) => m.confidence > 0 && !/^(ASCII|UTF-)/i.test(m.name) && decode(EMPTY, m.name) !== undefined,
  );
  const best = usable[0];
  if (!best) return FALLBACK;
  const western = usable.find((m) => /^(ISO-8859-1|windows-1252)$/i.test(m.name));
  return western && best.confidence - western.confidence <= WESTERN_MARGIN ? western.name : best.name;
}

function charsetOf(contentType?: string): string | undefined {
  return /;\s*charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? "")?.[1];
}

/** `<meta charset=…>` or an http-equiv content type in the first 1 KB of an HTML page. */
function sniffMetaCharset(bytes: Uint8Array): string | undefined {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 1024));
  return /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
}
