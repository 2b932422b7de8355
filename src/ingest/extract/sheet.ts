/**
 * XLSX and ODS through SheetJS: each sheet a section headed `# <sheet name>`, each row of
 * a table `header: value; header: value` as for CSV (docs/API.md, "What text is indexed").
 * SheetJS would read the raw zip with its own inflater, which honours none of our limits;
 * it is handed instead a container of parts that zip.ts inflated, each capped at the size
 * the (already checked) directory declares. Images and other media are never inflated.
 */
import * as XLSX from "@e965/xlsx";
import { rowToText } from "./csv";
import { TextBudget } from "./text-budget";
import { ExtractionError, unreadable } from "./errors";
import { inflateEntry, type ZipDirectory } from "./zip";

interface Cell {
  t: string;
  v?: unknown;
  w?: string;
}
type Sheet = { "!data"?: (Cell | null | undefined)[][] };
interface Workbook {
  SheetNames: string[];
  Sheets: Record<string, Sheet>;
}

/** Parts SheetJS never reads for text: pictures, media, thumbnails, embedded objects. */
const MEDIA =
  /(^|\/)(media|Pictures|Thumbnails|embeddings|ObjectReplacements)\/|\.(png|jpe?g|gif|bmp|emf|wmf|tiff?|svg|wdp)$/i;

const MB = 1024 * 1024;
/**
 * SheetJS holds a whole workbook as objects: measured, about 19 bytes of memory per byte of
 * sheet XML (an 18 MB sheet of 100,000 rows peaked at 340 MB more). Workbooks whose parts
 * expand to more are refused before anything is inflated, so one upload cannot exhaust memory.
 */
export const SHEET_PARTS_LIMIT = 50 * MB;

/**
 * ODF 1.2 makes `styles.xml` optional, and some tools leave it out, but SheetJS reads it
 * unconditionally ("Cannot find file styles.xml in zip"): such a workbook is handed this
 * empty one, and reads as it would with no styles (ODT and ODP never read it).
 */
const NO_STYLES = new TextEncoder().encode(
  '<?xml version="1.0" encoding="UTF-8"?><office:document-styles xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" office:version="1.2"/>',
);

/** The text of a workbook whose zip directory has passed the limits. */
export function extractSheets(bytes: Uint8Array, zip: ZipDirectory, format: "xlsx" | "ods"): string {
  const parts = [...zip.values()].filter((e) => !e.name.endsWith("/") && !MEDIA.test(e.name));
  const total = parts.reduce((sum, e) => sum + e.size, 0);
  if (total > SHEET_PARTS_LIMIT)
    throw new ExtractionError(
      `${format} too large: its sheets expand to ${(total / MB).toFixed(1)} MB (limit ${SHEET_PARTS_LIMIT / MB} MB)`,
    );
  const container = XLSX.CFB.utils.cfb_new();
  for (const entry of parts) XLSX.CFB.utils.cfb_add(container, entry.name, inflateEntry(bytes, entry));
  if (format === "ods" && !zip.has("styles.xml")) XLSX.CFB.utils.cfb_add(container, "styles.xml", NO_STYLES);
  let book: Workbook;
  try {
    const parseZip = (XLSX as unknown as { parse_zip: (zip: unknown, opts: object) => Workbook }).parse_zip;
    book = parseZip(container, { dense: true, cellFormula: false, cellHTML: false, cellStyles: false });
  } catch (err) {
    if (err instanceof ExtractionError) throw err;
    throw unreadable(format, err);
  }
  const budget = new TextBudget(format);
  return book.SheetNames.map((name) => sheetSection(name, book.Sheets[name], budget))
    .filter(Boolean)
    .join("\n\n");
}

function sheetSection(name: string, sheet: Sheet | undefined, budget: TextBudget): string {
  // Counted before any row is joined: cells may all show one long shared string.
  const rows = (sheet?.["!data"] ?? []).map((row) =>
    (row ?? []).map((cell) => {
      const text = cellText(cell);
      budget.take(text.length + 2);
      return text;
    }),
  );
  const body = tableText(rows.filter((r) => r.some(Boolean)));
  return body ? `# ${name}\n\n${body}` : "";
}

/**
 * The header is the first row with two or more cells that are all text (a title line above
 * a table is kept as a line of its own); without one, each row is its values joined by `; `.
 */
function tableText(rows: string[][]): string {
  const at = rows.findIndex((r) => r.filter(Boolean).length >= 2);
  const isHeader = at >= 0 && rows[at]!.every((v) => !v || Number.isNaN(Number(v)));
  const plain = (r: string[]) => r.filter(Boolean).join("; ");
  if (!isHeader) return rows.map(plain).join("\n");
  const header = rows[at]!;
  const data = rows.slice(at + 1).map((row) => rowToText(header, row));
  // As for CSV, the header names stand alone only when no row follows them.
  const lines = [...rows.slice(0, at).map(plain), ...(data.length ? data : [header.filter(Boolean).join(", ")])];
  return lines.filter(Boolean).join("\n");
}

function cellText(cell: Cell | null | undefined): string {
  if (!cell || cell.t === "z") return "";
  const text = cell.w ?? (cell.v === undefined ? "" : String(cell.v));
  return text.replace(/\s+/g, " ").trim();
}
