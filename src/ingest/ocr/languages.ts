/** Where OCR language data lives (docs/API.md, "OCR"): English built in, others in <data dir>/ocr. */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import engPath from "@tesseract.js-data/eng/4.0.0_best_int/eng.traineddata.gz" with { type: "file" };

/** A language's name (eng, chi_sim…): also a file name under <data dir>/ocr, so nothing else. */
export const LANGUAGE_NAME = /^[A-Za-z][A-Za-z0-9_]{0,39}$/;

/** The language data the executable carries, gzipped, by name. */
export const BUILT_IN_LANGUAGES: ReadonlyMap<string, string> = new Map([["eng", engPath]]);

const EXTENSION = ".traineddata";

/** The file a language's data is read from when present (it overrides a built-in one). */
export const languageFile = (dataDir: string, lang: string) => join(dataDir, "ocr", `${lang}${EXTENSION}`);

/** The first of `languages` that has no data, or undefined when all can be read. */
export function missingLanguage(languages: string[], dataDir: string): string | undefined {
  return languages.find((lang) => !BUILT_IN_LANGUAGES.has(lang) && dataFileSize(dataDir, lang) === undefined);
}

/** The size of a language's file in the ocr folder; undefined when there is none (or it is not a file). */
function dataFileSize(dataDir: string, lang: string): number | undefined {
  const stat = statSync(languageFile(dataDir, lang), { throwIfNoEntry: false });
  return stat?.isFile() ? stat.size : undefined;
}

/** The sentence for a language without data; the same whether the API or OCR finds it. */
export const missingLanguageMessage = (lang: string) =>
  `OCR language data "${lang}" is missing: place ${lang}.traineddata in the data directory's ocr folder`;

/** A language OCR can read with now; `builtIn` when no file in the ocr folder replaces the built-in data. */
export interface PresentLanguage {
  code: string;
  builtIn: boolean;
  /** Size of the data OCR loads (the built-in data unpacked). */
  bytes: number;
}

/**
 * Every language OCR can read with now, sorted by name: the built-in ones and each
 * `<name>.traineddata` file of the ocr folder whose name is a LANGUAGE_NAME. The files'
 * contents are not read: a damaged file shows here and fails when OCR loads it.
 */
export function presentLanguages(dataDir: string): PresentLanguage[] {
  const found = new Map<string, PresentLanguage>();
  for (const code of BUILT_IN_LANGUAGES.keys()) found.set(code, { code, builtIn: true, bytes: builtInBytes(code) });
  for (const file of ocrFolderFiles(dataDir)) {
    const code = file.slice(0, -EXTENSION.length);
    if (!file.endsWith(EXTENSION) || !LANGUAGE_NAME.test(code)) continue;
    const bytes = dataFileSize(dataDir, code);
    if (bytes !== undefined) found.set(code, { code, builtIn: false, bytes });
  }
  return [...found.values()].sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
}

function ocrFolderFiles(dataDir: string): string[] {
  try {
    return readdirSync(join(dataDir, "ocr"));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
}

const unpackedSizes = new Map<string, number>();

/** A built-in language's unpacked size: the gzip trailer's ISIZE, read once per process. */
function builtInBytes(code: string): number {
  let size = unpackedSizes.get(code);
  if (size === undefined) {
    const gz = readFileSync(BUILT_IN_LANGUAGES.get(code)!);
    size = new DataView(gz.buffer, gz.byteOffset, gz.byteLength).getUint32(gz.byteLength - 4, true);
    unpackedSizes.set(code, size);
  }
  return size;
}
