/**
 * DOCX text through mammoth. Mammoth is handed our own zip reader (its `file` input, which
 * its typings omit) instead of the raw bytes, so every part it reads is inflated with the
 * caps from zip.ts and parts it does not need (images) are never inflated at all.
 */
import mammoth from "mammoth";
import { ExtractionError, unreadable } from "./errors";
import { inflateEntry, type ZipDirectory } from "./zip";

/** Extracts the raw text of a DOCX whose directory has already passed the zip limits. */
export async function extractDocx(bytes: Uint8Array, zip: ZipDirectory): Promise<string> {
  const file = {
    exists: (name: string) => zip.has(name),
    read: async (name: string, encoding?: string) => {
      const entry = zip.get(name);
      if (!entry) throw new ExtractionError(`docx part ${name} is missing`);
      const data = inflateEntry(bytes, entry);
      return encoding ? new TextDecoder(encoding).decode(data) : data;
    },
    write: () => {
      throw new Error("read-only docx");
    },
    toArrayBuffer: () => {
      throw new Error("read-only docx");
    },
  };
  try {
    const result = await mammoth.extractRawText({ file } as never);
    return result.value;
  } catch (err) {
    if (err instanceof ExtractionError) throw err;
    throw unreadable("docx", err);
  }
}
