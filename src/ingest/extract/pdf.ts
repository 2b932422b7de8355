/**
 * PDF text through unpdf's serverless pdf.js build (no worker, bundles into the binary).
 * Pages without a text layer (scans) are read by OCR from the images drawn on them:
 * unpdf's extractImages hands over their decoded pixels, so no renderer is needed.
 */
import { extractImages, extractText, getDocumentProxy, getMeta } from "unpdf";
import { ExtractionError } from "./errors";
import { checkPixels, type Ocr, toPnm } from "./ocr";

type Pdf = Awaited<ReturnType<typeof getDocumentProxy>>;

/** Extracts the text of all pages, merged, and the title from the document info if set. */
export async function extractPdf(
  bytes: Uint8Array,
  ocr?: Ocr,
): Promise<{ text: string; title?: string; ocrPages: number }> {
  let pdf: Pdf;
  try {
    // pdf.js takes ownership of (detaches) the buffer it is given, so hand it a copy.
    pdf = await getDocumentProxy(new Uint8Array(bytes));
  } catch (err) {
    throw new ExtractionError(`could not read pdf: ${(err as Error).message}`);
  }
  try {
    const { text: pages } = await extractText(pdf, { mergePages: false });
    const scanned = ocr ? pages.flatMap((t, i) => (hasText(t) ? [] : [i])) : [];
    for (const [done, i] of scanned.entries()) {
      ocr!.progress(done, scanned.length);
      pages[i] = await ocrPage(pdf, i + 1, ocr!);
    }
    if (scanned.length) ocr!.progress(scanned.length, scanned.length);
    const { info } = await getMeta(pdf).catch(() => ({ info: {} as Record<string, unknown> }));
    const title = typeof info?.Title === "string" && info.Title.trim() ? info.Title.trim() : undefined;
    return { text: mergePages(pages), title, ocrPages: scanned.length };
  } finally {
    await pdf.destroy();
  }
}

/** A page has a text layer when it yields a letter or a digit. */
const hasText = (t: string) => /[\p{L}\p{N}]/u.test(t);

/** The text of the images drawn on a page, top to bottom as the page draws them. */
async function ocrPage(pdf: Pdf, n: number, ocr: Ocr): Promise<string> {
  const images = await extractImages(pdf, n);
  const page = await pdf.getPage(n);
  const widthInches = Math.abs(page.view[2]! - page.view[0]!) / 72;
  const texts: string[] = [];
  for (const [k, img] of images.entries()) {
    const label = images.length > 1 ? `page ${n} (image ${k + 1})` : `page ${n}`;
    checkPixels(img.width, img.height, `the image on ${label}`);
    // The resolution the scan was made at, as if the image fills the page's width.
    const dpi = widthInches > 0 ? Math.round(Math.min(1200, Math.max(70, img.width / widthInches))) : 300;
    texts.push(await ocr.recognize(toPnm(img.data, img.width, img.height, img.channels), label, { dpi }));
  }
  return texts.join("\n");
}

/** Joins page texts as unpdf's mergePages does: one space for runs of blanks, at most one empty line. */
function mergePages(texts: string[]): string {
  return texts
    .join("\n")
    .replace(/[^\S\n]+/g, " ")
    .replace(/ ?\n ?/g, "\n")
    .replace(/\n{3,}/g, "\n\n");
}
