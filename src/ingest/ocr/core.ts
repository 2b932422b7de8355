/**
 * Tesseract's WebAssembly core, driven directly (TessBaseAPI), inside the OCR thread.
 * The wasm and the English language data are embedded in the executable: nothing is
 * downloaded. Images reach Leptonica as files in the module's memory file system, so
 * PNG, JPEG, TIFF and WebP are decoded by the core itself; raw pixels go as PNM.
 */
import { existsSync, readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
// The SIMD + LSTM-only build: the smallest and fastest for LSTM language data.
import wasmPath from "tesseract.js-core/tesseract-core-simd-lstm.wasm" with { type: "file" };
// @ts-expect-error: an Emscripten factory without type declarations
import TesseractCore from "tesseract.js-core/tesseract-core-simd-lstm.js";
import { BUILT_IN_LANGUAGES, languageFile, missingLanguageMessage } from "./languages";

interface TessApi {
  Init(dataPath: string, langs: string, oem: number): number;
  SetVariable(name: string, value: string): boolean;
  SetImageFile(exif: number, angle: number): number;
  Recognize(monitor: null): number;
  GetUTF8Text(): string;
  Clear(): void;
  End(): void;
}

interface TessModule {
  FS: { writeFile(path: string, data: Uint8Array): void; mkdir(path: string): void; unlink(path: string): void };
  TessBaseAPI: new () => TessApi;
}

/** OEM_LSTM_ONLY: the engine every published language data set carries. */
const OEM_LSTM_ONLY = 1;
/** PSM_AUTO: find the blocks and lines of a whole page, as the tesseract command does. */
const PSM_AUTO = "3";

export class OcrError extends Error {}

let core: TessModule | null = null;
let api: TessApi | null = null;
let loadedLanguages = "";

/**
 * The bytes of a language's data: `<dataDir>/ocr/<lang>.traineddata` when present
 * (which also overrides a built-in language), else the built-in data.
 */
function languageData(lang: string, dataDir: string): Uint8Array {
  const file = languageFile(dataDir, lang);
  if (existsSync(file)) return new Uint8Array(readFileSync(file));
  const builtIn = BUILT_IN_LANGUAGES.get(lang);
  if (builtIn) return gunzipSync(readFileSync(builtIn));
  throw new OcrError(missingLanguageMessage(lang));
}

async function loadCore(): Promise<TessModule> {
  const wasmBinary = readFileSync(wasmPath);
  // print/printErr: the core's own chatter (resolution warnings) is not ragd's log.
  return (await TesseractCore({ wasmBinary, print: () => {}, printErr: () => {} })) as TessModule;
}

/** A TessBaseAPI initialised for `languages`, kept while they stay the same. */
async function apiFor(languages: string[], dataDir: string): Promise<TessApi> {
  const key = languages.join("+");
  if (api && loadedLanguages === key) return api;
  core ??= await loadCore();
  api?.End();
  api = null;
  try {
    core.FS.mkdir("/tessdata");
  } catch {} // already there
  for (const lang of languages) core.FS.writeFile(`/tessdata/${lang}.traineddata`, languageData(lang, dataDir));
  const next = new core.TessBaseAPI();
  if (next.Init("/tessdata", key, OEM_LSTM_ONLY) !== 0)
    throw new OcrError(`OCR could not load the language data "${key}" (is each .traineddata file whole?)`);
  next.SetVariable("tessedit_pageseg_mode", PSM_AUTO);
  // Keep only the spaces the page shows: without it, Chinese or Japanese read beside English
  // (or with the best_int data) comes back as "東京 は 日 本 の 首都" and no word is found.
  next.SetVariable("preserve_interword_spaces", "1");
  api = next;
  loadedLanguages = key;
  return next;
}

/**
 * Recognises the text of one image: an encoded file (PNG, JPEG, TIFF, WebP, PNM).
 * `dpi` is the resolution to assume when the file does not say (pixels out of a PDF);
 * `exif` the EXIF orientation to turn the image upright by.
 */
export async function recognize(
  image: Uint8Array,
  languages: string[],
  dataDir: string,
  { dpi, exif }: { dpi?: number; exif?: number } = {},
): Promise<string> {
  const tess = await apiFor(languages, dataDir);
  core!.FS.writeFile("/input", image);
  try {
    tess.SetVariable("user_defined_dpi", String(dpi ?? 0));
    if (tess.SetImageFile(exif ?? 1, 0) !== 0) throw new OcrError("the image could not be decoded");
    tess.Recognize(null);
    return tess.GetUTF8Text();
  } finally {
    tess.Clear();
    core!.FS.unlink("/input");
  }
}
