/**
 * A chunk row's id: its document and its place in it. Rows are written under it (ingestion,
 * imports), found by it (`id IN (…)`), and searches rebuild it from the two columns rather
 * than read it. No imports, so ingestion workers may use it.
 */
export function chunkId(documentId: string, chunkIndex: number): string {
  return `${documentId}:${chunkIndex}`;
}
