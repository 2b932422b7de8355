/** Where OCR language data lives (docs/API.md, "OCR"): English built in, others in <data dir>/ocr. */
import { existsSync } from "node:fs";
import { join } from "node:path";

/** A language's name (eng, chi_sim…): also a file name under <data dir>/ocr, so nothing else. */
export const LANGUAGE_NAME = /^[A-Za-z][A-Za-z0-9_]{0,39}$/;

/** The file a language's data is read from when present (it overrides the built-in English). */
export const languageFile = (dataDir: string, lang: string) => join(dataDir, "ocr", `${lang}.traineddata`);

/** The first of `languages` that has no data, or undefined when all can be read. */
export function missingLanguage(languages: string[], dataDir: string): string | undefined {
  return languages.find((lang) => lang !== "eng" && !existsSync(languageFile(dataDir, lang)));
}

/** The sentence for a language without data; the same whether the API or OCR finds it. */
export const missingLanguageMessage = (lang: string) =>
  `OCR language data "${lang}" is missing: place ${lang}.traineddata in the data directory's ocr folder`;
