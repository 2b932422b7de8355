/** English names of Tesseract language data names (docs/API.md, "OCR"). */

/**
 * Tesseract names that are not ISO 639 codes, as BCP 47 tags. Intl.DisplayNames knows
 * the ISO 639-2/3 codes most data is named by (deu, jpn, kor…) and maps them itself.
 */
const TAGS: Readonly<Record<string, string>> = {
  chi_sim: "zh-Hans",
  chi_tra: "zh-Hant",
  frk: "de-Latf",
  deu_latf: "de-Latf",
};

const display = new Intl.DisplayNames(["en"], { type: "language", fallback: "none" });

/**
 * A language's English name: "deu" → "German", "chi_sim" → "Simplified Chinese",
 * "aze_cyrl" → "Azerbaijani (Cyrillic)", "jpn_vert" → "Japanese (vertical)"; a name
 * no tag fits (a user's own "mine") is its own name.
 */
export function languageName(code: string): string {
  const vertical = code.endsWith("_vert");
  const base = vertical ? code.slice(0, -"_vert".length) : code;
  // A script suffix (aze_cyrl, srp_latn) is a BCP 47 script subtag.
  const tag = Object.hasOwn(TAGS, base) ? TAGS[base]! : base.replace(/_(?=[A-Za-z]{4}$)/, "-");
  const name = nameOf(tag);
  if (!name) return code;
  return vertical ? `${name} (vertical)` : name;
}

function nameOf(tag: string): string | undefined {
  try {
    return display.of(tag);
  } catch {
    return undefined; // not a well-formed language tag
  }
}
