/**
 * The language detector (eld-detect.ts) over eld's `extrasmall` data: its n-grams, the
 * average scores its reliability rule needs, its byte alphabet and word separators, all
 * eld's own modules (eld-internals.d.ts). eld.ts loads this file on first use.
 */
import { avgScore } from "eld-internals/avgScore.js";
import { dictionary } from "eld-internals/dictionary.js";
import { ngramsData } from "eld-internals/ngrams/extrasmall.js";
import { separators } from "eld-internals/regexPatterns.js";
import { eldDetector } from "./eld-detect";
import { NgramTable, packNgrams } from "./eld-tables";

/** The tables: packed by the executable's build (scripts/detector-tables.ts), or here from the package's. */
const { keys, packed } = "packed" in ngramsData ? ngramsData.packed : packNgrams(ngramsData.ngrams);

export const detectLanguage = eldDetector(new NgramTable(keys, packed), {
  languages: ngramsData.languages,
  avgScore,
  dictionary,
  separators,
});
