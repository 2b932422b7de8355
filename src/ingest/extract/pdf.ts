/**
 * PDF text through unpdf's serverless pdf.js build (no worker, bundles into the binary).
 * Pages without a text layer (scans) are read by OCR from the images drawn on them:
 * unpdf's extractImages hands over their decoded pixels, so no renderer is needed.
 * Pages are read a few at a time, within the bounds of pdf-bounds.ts.
 */
import { extractImages, getMeta, getResolvedPDFJS } from "unpdf";
import { ExtractionError, unreadable } from "./errors";
import { checkPixels, MAX_OCR_PIXELS, type Ocr, toPnm } from "./ocr";
import { checkPages, PdfBudget } from "./pdf-bounds";

type Pdf = Awaited<ReturnType<Awaited<ReturnType<typeof getResolvedPDFJS>>["getDocument"]>["promise"]>;
type Page = Awaited<ReturnType<Pdf["getPage"]>>;

/**
 * Opens a PDF within the budget. pdf.js reads an image's declared /Width and /Height
 * before decoding it and leaves out, undecoded, any over MAX_OCR_PIXELS (a 20000×20000
 * picture took 21 s and 1.7 GB to decode before OCR's own check refused it).
 */
async function open(bytes: Uint8Array, budget: PdfBudget): Promise<Pdf> {
  const { getDocument } = await getResolvedPDFJS();
  // unpdf's settings (getDocumentProxy), plus the bounds. pdf.js takes ownership of
  // (detaches) the buffer it is given, so it gets a copy.
  const loading = getDocument({
    data: new Uint8Array(bytes),
    isEvalSupported: false,
    useSystemFonts: true,
    maxImageSize: MAX_OCR_PIXELS,
  });
  // pdf.js may refuse the bytes before the step below awaits its promise (the step first
  // yields a turn): without a handler by then, that refusal ends the worker as unhandled.
  loading.promise.catch(() => {});
  try {
    return await budget.step(() => loading.promise);
  } catch (err) {
    // Stops pdf.js mid-open too (a page tree of many pages is walked before it says how many).
    void loading.destroy().catch(() => {});
    if (err instanceof ExtractionError) throw err;
    throw unreadable("pdf", err);
  }
}

/** Lets go of a document; pdf.js stops what it was doing at its next check, without holding up the job. */
const close = (pdf: Pdf | null) => void pdf?.destroy().catch(() => {});

/**
 * Extracts the text of all pages, merged, and the title from the document info if set.
 * `signal`: the job's cancellation, which stops the reading between and within pages.
 */
export async function extractPdf(
  bytes: Uint8Array,
  ocr?: Ocr,
  signal?: AbortSignal,
): Promise<{ text: string; title?: string; ocrPages: number }> {
  const budget = new PdfBudget(signal);
  const pdf = await open(bytes, budget);
  try {
    checkPages(pdf.numPages);
    const pages = await readTextLayer(pdf, budget);
    const scanned = ocr ? pages.flatMap((t, i) => (hasText(t) ? [] : [i])) : [];
    if (scanned.length) await ocrPages(pdf, pages, scanned, ocr!, budget);
    const { info } = await budget
      .step(() => getMeta(pdf))
      .catch((err: unknown) => {
        if (err instanceof ExtractionError) throw err;
        return { info: {} as Record<string, unknown> };
      });
    const title = typeof info?.Title === "string" && info.Title.trim() ? info.Title.trim() : undefined;
    return { text: mergePages(pages), title, ocrPages: scanned.length };
  } finally {
    close(pdf);
  }
}

/**
 * Pages read at once: each page costs a few turns of pdf.js's messages, which a few pages
 * in flight share (4,000 empty pages: 6.9 CPU-seconds one at a time, 5.2 eight at a
 * time, 9.9 and 846 MB all at once as unpdf's extractText reads them).
 */
const PAGES_AT_ONCE = 8;

/** The text of each page, as unpdf's extractText gives it. */
async function readTextLayer(pdf: Pdf, budget: PdfBudget): Promise<string[]> {
  const pages: string[] = [];
  for (let first = 1; first <= pdf.numPages; first += PAGES_AT_ONCE) {
    const batch = Array.from({ length: Math.min(PAGES_AT_ONCE, pdf.numPages - first + 1) }, (_, k) => first + k);
    pages.push(...(await budget.step(() => Promise.all(batch.map((n) => pageText(pdf, n))))));
  }
  return pages;
}

async function pageText(pdf: Pdf, n: number): Promise<string> {
  const page = await pdf.getPage(n);
  try {
    const { items } = await page.getTextContent();
    return items.map((item) => ("str" in item ? item.str + (item.hasEOL ? "\n" : "") : "")).join("");
  } finally {
    page.cleanup();
  }
}

/** A page has a text layer when it yields a letter or a digit. */
const hasText = (t: string) => /[\p{L}\p{N}]/u.test(t);

/** Recognises the `scanned` pages into `pages`; the budget pauses while OCR works. */
async function ocrPages(pdf: Pdf, pages: string[], scanned: number[], ocr: Ocr, budget: PdfBudget): Promise<void> {
  for (const [done, i] of scanned.entries()) {
    ocr.progress(done, scanned.length);
    pages[i] = await recognizePage(await budget.step(() => imagesOn(pdf, i + 1)), i + 1, ocr);
  }
  ocr.progress(scanned.length, scanned.length);
}

type PageImages = { images: Awaited<ReturnType<typeof extractImages>>; widthInches: number };

/** The decoded images a page draws, and its width; the page lets go of its pixels after. */
async function imagesOn(pdf: Pdf, n: number): Promise<PageImages> {
  const page: Page = await pdf.getPage(n);
  try {
    const images = await extractImages(pdf, n);
    return { images, widthInches: Math.abs(page.view[2]! - page.view[0]!) / 72 };
  } finally {
    page.cleanup();
  }
}

/** The text of the images drawn on a page, top to bottom as the page draws them. */
async function recognizePage({ images, widthInches }: PageImages, n: number, ocr: Ocr): Promise<string> {
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
