/**
 * eld's `detect()` (the `eld` package, Apache-2.0, © Nito T.M.), its steps and numbers
 * as the package has them, over its own tables read in place (eld-tables.ts). The
 * package's code makes an object of n-grams per text and adds each language's score
 * with `for (lang in entry)`: 95 µs a 200-character sample warm and about 270 µs in a
 * fresh thread, most of what `auto` costs English ingestion. This takes 22–33 µs and
 * answers the same: the same language, reliability and scores, held to the package by
 * test/eld-detect.test.ts on the repository's docs, short texts in 25 languages and
 * arbitrary strings (docs/notes/2026-12-07-english-ingestion.md).
 */
import type { NgramTable } from "./eld-tables";

/** What eld's tables and result need besides the n-grams (eld's own modules, eld-data.ts). */
export interface EldData {
  /** Language number → ISO 639-1 code. */
  languages: Record<number, string>;
  /** Per language, the average score of a right answer (eld's avgScore). */
  avgScore: Record<string, number>;
  /** A character per UTF-8 byte value (eld's dictionary). */
  dictionary: string[];
  /** Runs of characters that are not letters (eld's separators). */
  separators: RegExp;
}

/** What detect() answers, shaped as eld's LanguageResult. */
export interface Detection {
  language: string;
  isReliable(thresholdRatio?: number): boolean;
  getScores(): Record<string, number>;
}

/** eld subtracts this from every score to keep its tables small. */
const BASE_SCORE = 53;
/** eld's scale of a raw score per n-gram into 0–1. */
const SCALE = 25;
const NONE: Detection = { language: "", isReliable: () => false, getScores: () => ({}) };

export function eldDetector(table: NgramTable, data: EldData): (text: string) => Detection {
  const count = Object.keys(data.languages).length;
  const scores = new Float64Array(count);
  return (text) => {
    const cleaned = text.substring(0, 1000).replace(data.separators, " ").trim().toLowerCase();
    const grams = byteNgrams(utf8Words(cleaned, data.dictionary));
    scores.fill(0);
    for (const gram of grams) table.addScores(gram, scores, BASE_SCORE);
    let best = -1;
    for (let i = 0; i < count; i++) if (scores[i]! > 0 && (best < 0 || scores[i]! > scores[best]!)) best = i;
    if (best < 0) return NONE;
    return result(data.languages[best]!, scores, grams.size, data);
  };
}

/** eld's LanguageResult: scores scaled and ordered, reliability by its rule (as the package computes it). */
function result(language: string, raw: Float64Array, numNgrams: number, data: EldData): Detection {
  const ordered: [number, number][] = [];
  for (let i = 0; i < raw.length; i++)
    if (raw[i]! > 0) {
      const perNgram = raw[i]! / numNgrams;
      ordered.push([i, perNgram / (perNgram + SCALE)]);
    }
  ordered.sort((a, b) => b[1] - a[1]);
  return {
    language,
    isReliable(thresholdRatio = 0.75) {
      if (!ordered.length || numNgrams < 3) return false;
      // eld compares the best score with the second entry's language number, not its score: kept so.
      const next = ordered.length > 1 ? ordered[1]![0] : 0;
      return !(data.avgScore[language]! * thresholdRatio > ordered[0]![1] || 0.01 > Math.abs(ordered[0]![1] - next));
    },
    getScores() {
      const out: Record<string, number> = {};
      for (const [lang, score] of ordered) out[data.languages[lang]!] = score;
      return out;
    },
  };
}

/** eld's n-grams of its words: four bytes at a stride of three, a word's start and end marked by a space. */
function byteNgrams(words: string[]): Set<string> {
  const grams = new Set<string>();
  for (const word of words) {
    const len = Math.min(word.length, 70);
    let j = 0;
    for (; j + 4 < len; j += 3) grams.add((j === 0 ? " " : "") + word.substring(j, j + 4));
    grams.add(`${j === 0 ? " " : ""}${word.substring(len !== 3 ? len - 4 : 0)} `);
  }
  return grams;
}

/** eld's words of `text` as strings of one character per UTF-8 byte, cut after about 350 bytes. */
function utf8Words(text: string, dictionary: string[]): string[] {
  const words: string[] = [];
  let encoded = "";
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      if (c === 32) {
        if (encoded !== "") words.push(encoded);
        encoded = "";
        if (bytes > 350) break;
      } else encoded += text[i];
      bytes++;
    } else if (c < 0x800) {
      encoded += dictionary[0xc0 | (c >> 6)]! + dictionary[0x80 | (c & 0x3f)]!;
      bytes += 2;
    } else if (c < 0xd800 || c >= 0xe000) {
      encoded += dictionary[0xe0 | (c >> 12)]! + dictionary[0x80 | ((c >> 6) & 0x3f)]! + dictionary[0x80 | (c & 0x3f)]!;
      bytes += 3;
    } else {
      i++;
      c = 0x10000 + (((c & 0x3ff) << 10) | (text.charCodeAt(i) & 0x3ff));
      encoded +=
        dictionary[0xf0 | (c >> 18)]! +
        dictionary[0x80 | ((c >> 12) & 0x3f)]! +
        dictionary[0x80 | ((c >> 6) & 0x3f)]! +
        dictionary[0x80 | (c & 0x3f)]!;
      bytes += 4;
    }
    if (bytes > 380) break;
  }
  if (encoded !== "") words.push(encoded);
  return words;
}
