/**
 * The made-up language of the query benches: 20,000 words drawn with a skew, so that
 * some are common and most are rare, and topics of 40 words each. Seeded: every bench
 * that uses it writes the same text for the same row count.
 */
import { random } from "./support";

const SYLLABLES = "ka ro mi tan vel sor qu ix len dra po ne ul ga thi ber zo fen mar lit".split(" ");
const VOCAB = ((rnd) =>
  Array.from({ length: 20_000 }, (_, i) => {
    const w = Array.from({ length: 2 + (i % 3) }, () => SYLLABLES[Math.floor(rnd() * SYLLABLES.length)]).join("");
    return i % 11 === 0 ? `${w}-${i}` : `${w}${i % 97}`;
  }))(random(42));

/** A word of the language, common ones more often. */
export const word = (rnd: () => number) => VOCAB[Math.floor(VOCAB.length * rnd() ** 2)]!;

/** One topic of 40 words per 1,000 rows (at least 10). */
export const topicsFor = (rows: number) =>
  ((rnd) =>
    Array.from({ length: Math.max(10, Math.round(rows / 1000)) }, () =>
      Array.from({ length: 40 }, () => VOCAB[Math.floor(rnd() * VOCAB.length)]!),
    ))(random(5));

/** `n` words; with `topical`, 60 % of them from `topic`. */
export const sentenceOf = (rnd: () => number, n: number, topic: string[], topical = true) =>
  Array.from({ length: n }, () => (topical && rnd() < 0.6 ? topic[Math.floor(rnd() * topic.length)]! : word(rnd))).join(
    " ",
  );
