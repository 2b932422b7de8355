/**
 * How much text one source may give: MAX_TEXT_CHARS characters, about 100,000 chunks of
 * 500. A few hundred kilobytes of JSON whose records repeat long nested keys, or a small
 * workbook whose cells all show one long shared string, expanded to millions of chunks
 * and gigabytes of memory (docs/notes/2026-12-07-outside-attacks.md). The formats that
 * can expand count as they build (json.ts, sheet.ts); extract() checks every format's
 * result.
 */
import { ExtractionError } from "./errors";

export const MAX_TEXT_CHARS = 50_000_000;

/** The ExtractionError for a source whose text passed the limit. */
export function tooMuchText(kind: string): ExtractionError {
  return new ExtractionError(
    `${kind} too large: its text is over ${MAX_TEXT_CHARS.toLocaleString("en")} characters; split it into smaller files`,
  );
}

/** Counts the characters a reader builds; throws tooMuchText once they pass the limit. */
export class TextBudget {
  private used = 0;

  constructor(private readonly kind: string) {}

  take(chars: number): void {
    this.used += chars;
    if (this.used > MAX_TEXT_CHARS) throw tooMuchText(this.kind);
  }
}
