/**
 * OCR thread entry: one page at a time, in a thread of its own, so that the ingestion
 * worker that owns it stays responsive and can stop a page that runs too long by
 * terminating this thread (recognition is synchronous WebAssembly: it cannot be interrupted).
 */
import { OcrError, recognize } from "./core";

declare const self: Worker;

export interface OcrRequest {
  id: number;
  image: Uint8Array;
  languages: string[];
  dataDir: string;
  dpi?: number;
  /** EXIF orientation, 1–8: the core turns the image upright by it. */
  exif?: number;
}

export type OcrReply = { id: number; text: string } | { id: number; error: string; known: boolean };

self.onmessage = async (event: MessageEvent<OcrRequest>) => {
  const { id, image, languages, dataDir, dpi, exif } = event.data;
  try {
    self.postMessage({ id, text: await recognize(image, languages, dataDir, { dpi, exif }) } satisfies OcrReply);
  } catch (err) {
    const known = err instanceof OcrError;
    self.postMessage({ id, error: known ? err.message : String(err), known } satisfies OcrReply);
  }
};
