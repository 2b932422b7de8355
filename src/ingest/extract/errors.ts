/** The one error extraction throws: the document cannot be turned into text, and retrying will not help. */
export class ExtractionError extends Error {
  override name = "ExtractionError";

  /** `detail`: a parser's own words, for the log only, never a source's `error` (see unreadable). */
  constructor(
    message: string,
    readonly detail?: string,
  ) {
    super(message);
  }
}

/** The ExtractionError for content ragd cannot index. */
export function unsupported(type: string, label: string): ExtractionError {
  return new ExtractionError(`unsupported file type: ${type} (${label})`);
}

/** The formats whose parsers are libraries, and how a person names each: [the …, a …]. */
const FORMATS = {
  docx: ["DOCX file", "a DOCX file"],
  xlsx: ["XLSX file", "an XLSX file"],
  ods: ["ODS file", "an ODS file"],
  pdf: ["PDF file", "a PDF file"],
  json: ["JSON", "JSON"],
  zip: ["zip archive", "a zip archive"],
} as const;

/**
 * The ExtractionError for a file its parser refused: one sentence per format that a
 * person can act on. The parser's own words (xmldom's `[xmldom error]\tentity not
 * found…@#[line:…]`, zlib's codes, pdf.js's exceptions) say nothing to a user and may
 * echo the file's bytes, so they are kept as `detail`, which only the log shows.
 * @example catch (err) { throw unreadable("docx", err); }
 */
export function unreadable(format: keyof typeof FORMATS, cause: unknown): ExtractionError {
  if (tooDeep(cause)) return nestedTooDeeply();
  const detail = String((cause as Error)?.message ?? cause).slice(0, 200);
  return new ExtractionError(`could not read the ${FORMATS[format][0]}: ${why(format, detail)}`, detail);
}

function why(format: keyof typeof FORMATS, detail: string): string {
  if (format === "json") return "it is neither valid JSON nor JSON Lines";
  if (format === "zip") return "the compressed data of one of its entries is damaged";
  if (format === "pdf" && /password/i.test(detail)) return "it is protected by a password; upload a copy without one";
  if (format !== "pdf" && /xml|entity/i.test(detail))
    return "its XML is malformed or uses entities ragd does not expand";
  return `it is damaged or is not ${FORMATS[format][1]}`;
}

/**
 * Readers of nested markup recurse once per level: a document nested deeper than the stack
 * allows is refused with a sentence rather than a stack trace, or "damaged".
 */
export function tooDeep(err: unknown): boolean {
  return err instanceof RangeError && /call stack/i.test(err.message);
}

export function nestedTooDeeply(): ExtractionError {
  return new ExtractionError("document is nested too deeply to read");
}
