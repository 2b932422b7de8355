/**
 * The text a built-in embedder reads (embed/builtin*.ts cut words at anything but letters
 * and digits, so a Chinese clause would be one word): runs of unspaced scripts are split
 * into their words, and the character bigrams of Han and kana runs and of Korean words
 * are appended, so a two-character word such as `首都`, or `한강` inside `한강이`, has a
 * feature of its own. Text with neither is returned as it is: English, German or
 * Russian vectors stay bit for bit what they were.
 * Only for generations with a language setting (not `legacy`), and only for the
 * built-in models; Ollama and OpenAI models read the text as written.
 */
import { bigrams, runPairs, withPairs } from "./terms";
import { hasUnspaced, type Word, wordsOf } from "./words";

const HANGUL = /\p{sc=Hangul}/u;

export function embeddingText(text: string): string {
  if (!hasUnspaced(text) && !HANGUL.test(text)) return text;
  return embeddingTextOf(text, wordsOf(text), runPairs(text));
}

/**
 * embeddingText with the text's words and the character pairs of its Han and kana runs
 * (runPairs), when the caller has them already (ingestion: they are the costly part).
 */
export function embeddingTextOf(text: string, words: Word[], pairs: string): string {
  const unspaced = hasUnspaced(text);
  if (!unspaced && !HANGUL.test(text)) return text;
  const hangul: string[] = [];
  for (const w of words) if (w.script === "hangul") bigrams(w.text, hangul);
  const grams = withPairs(hangul, pairs);
  const spaced = unspaced ? words.map((w) => w.text).join(" ") : text;
  return grams ? `${spaced} ${grams}` : spaced;
}
