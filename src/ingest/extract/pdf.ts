/** PDF text through unpdf's serverless pdf.js build (no worker, bundles into the binary). */
import { extractText, getDocumentProxy, getMeta } from "unpdf";
import { ExtractionError } from "./errors";

/** Extracts the text of all pages, merged, and the title from the document info if set. */
export async function extractPdf(bytes: Uint8Array): Promise<{ text: string; title?: string }> {
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // pdf.js takes ownership of (detaches) the buffer it is given, so hand it a copy.
    pdf = await getDocumentProxy(new Uint8Array(bytes));
  } catch (err) {
    throw new ExtractionError(`could not read pdf: ${(err as Error).message}`);
  }
  try {
    const { text } = await extractText(pdf, { mergePages: true });
    const { info } = await getMeta(pdf).catch(() => ({ info: {} as Record<string, unknown> }));
    const title = typeof info?.Title === "string" && info.Title.trim() ? info.Title.trim() : undefined;
    return { text, title };
  } finally {
    await pdf.destroy();
  }
}
