/**
 * Passages of a chunk in another language than the chunk's (src/text/passages.ts): a
 * Finnish paragraph in an English chunk is stemmed as Finnish, an English one in a German
 * chunk as English, and text that only looks unlike English (tables of numbers, one
 * language throughout, a fixed setting) is left as the chunk's.
 */
import { describe, expect, test } from "bun:test";
import { analyseAnyText, analyseChunk, analyseQuery } from "../src/text/analyze";
import { englishStops, passages } from "../src/text/passages";
import { termOf } from "../src/text/terms";
import { IN_PART } from "./support/languages";

const { english1: ENGLISH_1, finnish: FINNISH, english2: ENGLISH_2 } = IN_PART;
const GERMAN_1 =
  "Die meisten Drucker können direkt auf einen Umschlag drucken, wenn das Papierformat vor dem Drucken " +
  "richtig eingestellt wurde.";
const GERMAN_2 = "Danach legen Sie den Umschlag mit der Vorderseite nach oben in das Fach ein.";
const ENGLISH_IN_GERMAN =
  "The first thing to check is that the printer knows the size of the envelope, and the second is which way round it goes.";

const words = (text: string) => text.toLowerCase().match(/\p{L}+|\p{N}+/gu) ?? [];
/** The passages of a text's words in a chunk of `lang`. */
const passagesOf = (text: string, lang: string | null) => {
  const all = words(text);
  return passages(all, lang, englishStops(all));
};
const termsOf = (text: string, setting = "auto") => analyseChunk(text, setting).terms.split(" ");

describe("an English chunk with a Finnish paragraph", () => {
  const text = `${ENGLISH_1} ${FINNISH} ${ENGLISH_2}`;

  test("stems the paragraph's words as Finnish, to its first and last word", () => {
    const terms = termsOf(text);
    for (const w of ["kirjekuorien", "tulostimilla", "tulostimeen", "oikein"]) {
      expect(terms).toContain(termOf(w, "latin", "fi"));
      expect(termOf(w, "latin", "fi")).not.toBe(termOf(w, "latin", "en"));
    }
    // The English around it stays English: stemmed as English, stop words out.
    expect(terms).toContain("envelop");
    expect(terms).not.toContain("the");
  });

  test("gives the paragraph's long words trigrams, as a Finnish chunk's, and the English ones none", () => {
    const grams = analyseChunk(text, "auto").grams.split(" ");
    expect(grams).toContain("tul");
    expect(grams).toContain("kuo");
    expect(grams).not.toContain("env");
  });

  test("is found by a Finnish query in another form of the paragraph's words", () => {
    const q = analyseQuery("Kirjekuorien tulostaminen", "auto");
    expect(q.language).toBe("fi");
    const terms = termsOf(text);
    for (const t of q.terms.split(" ")) expect(terms).toContain(t);
  });

  test("is not split under a fixed language", () => {
    const terms = termsOf(text, "en");
    expect(terms).toContain(termOf("tulostimilla", "latin", "en"));
    expect(terms).not.toContain(termOf("tulostimilla", "latin", "fi"));
  });
});

test("a German chunk with an English sentence stems that sentence as English", () => {
  const terms = termsOf(`${GERMAN_1} ${ENGLISH_IN_GERMAN} ${GERMAN_2}`);
  expect(terms).toContain("umschlag");
  expect(terms).toContain("envelop");
  // English stop words go in an English passage, as in an English chunk.
  expect(terms).not.toContain("which");
  expect(termsOf(`${GERMAN_1} ${GERMAN_2} ${GERMAN_1}`)).toEqual(termsOf(`${GERMAN_1} ${GERMAN_2} ${GERMAN_1}`, "de"));
});

describe("no passages", () => {
  test("in text of one language", () => {
    expect(passagesOf(`${ENGLISH_1} ${ENGLISH_2}`, "en")).toEqual([]);
    expect(passagesOf(`${GERMAN_1} ${GERMAN_2} ${GERMAN_1}`, "de")).toEqual([]);
  });

  test("in a table of package names and sizes", () => {
    // Rows detection reads as Danish and Italian: `find 1 binutils v 160 i 642 109 ar ar 1 archiver`.
    const table =
      "command comment find (1) binutils V:160, I:642 109 .ar ar (1) archiver find (1) " +
      "openssl V:841, I:995 2269 openssl passwd compute password hashes openssl passwd (1ssl) 841 995 2269 ";
    expect(passagesOf(`${ENGLISH_1} ${table} ${ENGLISH_2}`, "en")).toEqual([]);
  });

  test("in a chunk of no sure language or of under two windows", () => {
    expect(passagesOf(`${ENGLISH_1} ${FINNISH} ${ENGLISH_2}`, null)).toEqual([]);
    expect(passagesOf(FINNISH, "en")).toEqual([]);
  });
});

test("a passage covers the paragraph's words and no more than a few English ones", () => {
  const all = words(`${ENGLISH_1} ${FINNISH} ${ENGLISH_2}`);
  const [found, ...rest] = passages(all, "en", englishStops(all));
  expect(rest).toEqual([]);
  expect(found!.language).toBe("fi");
  const start = words(ENGLISH_1).length;
  const end = start + words(FINNISH).length;
  expect(found!.from).toBeLessThanOrEqual(start);
  expect(found!.to).toBeGreaterThanOrEqual(end);
  expect(start - found!.from + found!.to - end).toBeLessThanOrEqual(4);
});

test("the ASCII path gives what the general path gives, passages and all", () => {
  const dutch =
    "De meeste printers kunnen rechtstreeks op een envelop afdrukken, zolang het papierformaat vooraf goed " +
    "is ingesteld en de envelop op de juiste manier in de lade wordt gelegd.";
  const text = `${ENGLISH_1} ${dutch} ${ENGLISH_2}`;
  expect(analyseChunk(text, "auto")).toEqual(analyseAnyText(text, "auto"));
  // A Dutch passage: stemmed as Dutch, the English around it as English.
  const terms = termsOf(text);
  expect(terms).toContain(termOf("papierformaat", "latin", "nl"));
  expect(terms).not.toContain(termOf("papierformaat", "latin", "en"));
  expect(terms).toContain("envelop");
});
