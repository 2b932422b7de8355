/**
 * What this process knows of each table's full-text tail: the rows outside its full-text
 * index (written since upkeep last caught it up). The writer counts what it writes; the
 * ingestion sink paces searched tables by the count (table-upkeep.ts), and searches
 * narrowed to a few rows take the tail's way while a table may have one (tail-scores.ts).
 */
export class TextTail {
  /** Per table, rows written since its full-text index last caught up. */
  private readonly unindexed = new Map<string, number>();
  /** Tables whose full-text index this process saw hold every row (created here, or caught up since). */
  private readonly known = new Set<string>();

  /** Rows written to the table since its last catch-up. */
  rows(name: string): number {
    return this.unindexed.get(name) ?? 0;
  }

  /**
   * Whether the table may hold rows outside its full-text index: rows written or rewritten
   * since its last catch-up, or a table this process has not yet seen caught up (opened
   * after a restart or a restore). Rows another replica writes into a table this process
   * has caught up are not counted: until its next catch-up they are looked up narrowed.
   */
  mayExist(name: string): boolean {
    return this.rows(name) > 0 || !this.known.has(name);
  }

  wrote(name: string, rows: number): void {
    if (rows) this.unindexed.set(name, this.rows(name) + rows);
  }

  /** Rows rewritten in place (their metadata): out of the index until the next catch-up, uncounted. */
  rewrote(name: string): void {
    this.known.delete(name);
  }

  /** The table was created here, its first rows indexed with it, or its index caught up. */
  indexed(name: string): void {
    this.unindexed.delete(name);
    this.known.add(name);
  }

  forget(name: string): void {
    this.unindexed.delete(name);
    this.known.delete(name);
  }
}
