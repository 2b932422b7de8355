/** CSV and TSV to text that keeps the header names: one `col: value; col: value` line per row. */

/** Turns a delimited table into lines; the delimiter is sniffed from the first line unless given. */
export function csvToText(text: string, delimiter?: string): string {
  const rows = parseCsv(text, delimiter ?? sniffDelimiter(text));
  if (rows.length === 0) return "";
  const header = rows[0]!.map((h, i) => clean(h) || `column ${i + 1}`);
  if (rows.length === 1) return header.join(", ");
  return rows
    .slice(1)
    .map((row) => rowToText(header, row))
    .filter(Boolean)
    .join("\n");
}

/** One row as `header: value; header: value`, empty cells left out; columns past the header are `column N`. */
export function rowToText(header: string[], row: string[]): string {
  return row
    .map((value, i) => (clean(value) ? `${header[i] || `column ${i + 1}`}: ${clean(value)}` : ""))
    .filter(Boolean)
    .join("; ");
}

/** RFC 4180 parsing: quoted fields may hold delimiters, doubled quotes and line breaks. */
export function parseCsv(text: string, delimiter: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') (field += '"'), i++;
      else quoted = false;
    } else if (c === '"' && field === "") quoted = true;
    else if (c === delimiter) row.push(field), (field = "");
    else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(field), rows.push(row), (row = []), (field = "");
    } else field += c;
  }
  if (field !== "" || row.length > 0) row.push(field), rows.push(row);
  return rows.filter((r) => r.some((f) => f.trim() !== ""));
}

function sniffDelimiter(text: string): string {
  const first = text.slice(0, text.search(/\r?\n|$/));
  const counts = [",", ";", "\t", "|"].map((d) => [d, first.split(d).length] as const);
  return counts.reduce((best, c) => (c[1] > best[1] ? c : best))[0];
}

const clean = (s: string) => s.replace(/\s+/g, " ").trim();
