/**
 * The languages a pipeline can be set to (CONTRACT §15), and what ragd does for each:
 * a Snowball stemmer (from @orama/stemmers, the same stems as LanceDB's own) for the
 * alphabetic ones, dictionary word breaking (Intl.Segmenter) for those written without
 * spaces, syllable bigrams for Korean. `auto` detects per chunk and per query;
 * `legacy` is what pipelines made before languages existed keep until re-indexed.
 */
import { stemmer as ar } from "@orama/stemmers/arabic";
import { stemmer as hy } from "@orama/stemmers/armenian";
import { stemmer as bg } from "@orama/stemmers/bulgarian";
import { stemmer as da } from "@orama/stemmers/danish";
import { stemmer as nl } from "@orama/stemmers/dutch";
import { stem as en } from "porter2";
import { stemmer as fi } from "@orama/stemmers/finnish";
import { stemmer as fr } from "@orama/stemmers/french";
import { stemmer as de } from "@orama/stemmers/german";
import { stemmer as el } from "@orama/stemmers/greek";
import { stemmer as hu } from "@orama/stemmers/hungarian";
import { stemmer as id } from "@orama/stemmers/indonesian";
import { stemmer as ga } from "@orama/stemmers/irish";
import { stemmer as it } from "@orama/stemmers/italian";
import { stemmer as lt } from "@orama/stemmers/lithuanian";
import { stemmer as ne } from "@orama/stemmers/nepali";
import { stemmer as no } from "@orama/stemmers/norwegian";
import { stemmer as pt } from "@orama/stemmers/portuguese";
import { stemmer as ro } from "@orama/stemmers/romanian";
import { stemmer as ru } from "@orama/stemmers/russian";
import { stemmer as es } from "@orama/stemmers/spanish";
import { stemmer as sv } from "@orama/stemmers/swedish";
import { stemmer as ta } from "@orama/stemmers/tamil";
import { stemmer as tr } from "@orama/stemmers/turkish";
import { stemmer as uk } from "@orama/stemmers/ukrainian";

/**
 * Snowball stemmers by ISO 639-1 code. English is Porter2 (`porter2`), the Snowball
 * English of LanceDB's own index: the same stem as LanceDB's English tokenizer for 35,732
 * of SciFact's 35,734 distinct words (the two others are over its 40-character limit), so
 * English ranks as it did before languages (@orama's English is the older Porter: `delay`
 * → `delai`; wink-porter2-stemmer, used before, differed on 3,571: `cd33` → `cdyi`,
 * `plateau` → `platea`). Serbian's is left out: it answers Cyrillic words in Latin letters.
 */
export const STEMMERS: Readonly<Record<string, (word: string) => string>> = {
  ar,
  bg,
  da,
  de,
  el,
  en,
  es,
  fi,
  fr,
  ga,
  hu,
  hy,
  id,
  it,
  lt,
  ne,
  nl,
  no,
  pt,
  ro,
  ru,
  sv,
  ta,
  tr,
  uk,
};

/** Languages written without spaces between words: split by the runtime's word breaker (ICU). */
export const SEGMENTED = ["zh", "ja", "th", "lo", "km", "my"] as const;

/** The value of a pipeline made before this setting existed: the index and queries as they were. */
export const LEGACY = "legacy";

/** The default of new pipelines: each chunk's and query's language detected. */
export const AUTO = "auto";

/** Every fixed language a pipeline can be set to, sorted. */
export const LANGUAGE_CODES: readonly string[] = [...Object.keys(STEMMERS), ...SEGMENTED, "ko"].sort();

/** What a pipeline's `language` may be set to by a client (`legacy` is never chosen, only kept). */
export function isLanguageSetting(value: string): boolean {
  return value === AUTO || LANGUAGE_CODES.includes(value);
}

export interface LanguageInfo {
  code: string;
  name: string;
  /** Inflected forms meet at one stem. */
  stemming: boolean;
  /** How words are found: at spaces and punctuation, by a dictionary, or as syllable pairs. */
  words: "spaces" | "dictionary" | "syllable-pairs";
}

/** The list `GET /api/languages` answers with. */
export function languageList(): LanguageInfo[] {
  const names = new Intl.DisplayNames(["en"], { type: "language" });
  return LANGUAGE_CODES.map((code) => ({
    code,
    name: names.of(code) ?? code,
    stemming: code in STEMMERS,
    words: (SEGMENTED as readonly string[]).includes(code) ? "dictionary" : code === "ko" ? "syllable-pairs" : "spaces",
  }));
}
