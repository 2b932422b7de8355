/** Shapes shared by extraction, chunking and the ingestion worker. */

export type ChunkingStrategy = "recursive" | "fixed" | "sentence" | "paragraph" | "markdown" | "token";

export interface ChunkOptions {
  strategy: ChunkingStrategy;
  /** Characters, or tokens for the `token` strategy. */
  size: number;
  /** Same unit as size; 0 <= overlap < size. */
  overlap: number;
}

export interface Chunk {
  /** 0-based position of the chunk in its document. */
  index: number;
  text: string;
  /** Character offsets of the chunk in the extracted text: text === source.slice(start, end). */
  start: number;
  end: number;
}

/** Text extracted from a document, ready to chunk. */
export interface Extracted {
  text: string;
  /** Detected type, e.g. "pdf", "docx", "html", "markdown", "csv", "json", "text". */
  kind: string;
  title?: string;
  /** Set when some of the text was read by OCR (docs/API.md, "OCR"). */
  ocr?: { languages: string[]; pages: number };
}
