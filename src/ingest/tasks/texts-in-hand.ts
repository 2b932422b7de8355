/**
 * The texts of text sources just stored, kept in memory until a claim starts their jobs.
 * A claim otherwise reads back from SQLite, moments after, the text the request brought:
 * for a batch of small documents that is most of the claim's reading, and a fresh copy of
 * every text. An entry serves only a document whose stored content hash is the entry's,
 * so a text replaced or changed meanwhile is read from the database; an entry a claim
 * finds goes, whatever it holds. At most `maxChars` of text are kept, the oldest going
 * first (a document deleted before its claim leaves its entry until then).
 */
export class TextsInHand {
  private readonly texts = new Map<string, { hash: string; text: string }>();
  private chars = 0;

  constructor(private readonly maxChars = 16 * 1024 * 1024) {}

  /** Keeps the text of `documentId`, whose stored content hash is `hash`. */
  keep(documentId: string, hash: string, text: string): void {
    this.drop(documentId);
    if (text.length > this.maxChars) return;
    this.texts.set(documentId, { hash, text });
    this.chars += text.length;
    for (const id of this.texts.keys()) {
      if (this.chars <= this.maxChars) break;
      this.drop(id);
    }
  }

  /** The text kept for `documentId` if it was kept under `hash`, else null; either way the entry goes. */
  take(documentId: string, hash: string | null): string | null {
    const kept = this.texts.get(documentId);
    if (!kept) return null;
    this.drop(documentId);
    return hash !== null && kept.hash === hash ? kept.text : null;
  }

  /** Characters of text kept now. */
  get size(): number {
    return this.chars;
  }

  private drop(documentId: string): void {
    const kept = this.texts.get(documentId);
    if (!kept) return;
    this.chars -= kept.text.length;
    this.texts.delete(documentId);
  }
}
