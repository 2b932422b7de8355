/**
 * Keyword and built-in vector retrieval per language, for choosing the text analysis of
 * the full-text index and the built-in embedder (docs/notes/2026-12-06-languages-groundwork.md).
 * Each page or section of Debian's translated guides is a document and its title the
 * query; hit@10 and nDCG@10 of that document, per language and analyzer. Built at run time
 * from what the packages install (`gnome-user-docs`, `debian-reference-{en,de,fr,ja,zh-cn}`),
 * never copied.
 *
 *   ./node_modules/.bin/bun bench/languages.ts [gnome|debref] [LANG,LANG…]
 *   ./node_modules/.bin/bun bench/languages.ts --ragd …   (through ragd itself: languages-ragd.ts)
 *
 * Analyzers: today's `Index.fts()` on the raw text; LanceDB's `icu` and `ngram` (2–3)
 * tokenizers on the raw text; and text analysed before indexing, its terms joined by
 * spaces under the `whitespace` tokenizer with the language's stemmer: `W` words of
 * Intl.Segmenter, `B` character bigrams over CJK runs and Hangul words (the BM25 reference
 * of the issue), `W+B` both, `plan` W+B with Hangul words and their bigrams, French-style
 * elisions split, and character trigrams of words of 6 letters or more in compounding
 * languages. `vec raw` and `vec spaced` are the built-in embedder on the raw text and on
 * the text with its runs of scripts written without spaces segmented (the rest untouched),
 * and `vec sp+B` the same with the bigrams of CJK runs appended, by exact cosine.
 * Also the index's size on disk and the analysis speed.
 */
import { connect, Index, MatchQuery } from "@lancedb/lancedb";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { embedBuiltin } from "../src/embed/builtin";
import { DEFAULT_LANGS, type Doc, LANGS, languageSet, scores, type SetSource } from "./language-sets";

const words = new Intl.Segmenter("und", { granularity: "word" });
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー]/u;
const CJK_RUNS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー]+/gu;
const HANGUL = /\p{Script=Hangul}/u;
/** Runs of the scripts written without spaces: Han, kana, Thai, Lao, Khmer, Myanmar. */
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]+/gu;

interface Analysis {
  words?: boolean;
  bigrams?: boolean;
  hangulWords?: boolean;
  elisions?: boolean;
  trigrams?: boolean;
}

function bigramsOf(run: string, out: string[]): void {
  const cs = [...run];
  if (cs.length === 1) out.push(run);
  for (let i = 0; i + 1 < cs.length; i++) out.push(cs[i]! + cs[i + 1]!);
}

/** A Latin, Cyrillic… word as the analysis keeps it: split at elisions, with its trigrams when long. */
function spacedWord(w: string, a: Analysis, out: string[]): void {
  const parts = a.elisions ? w.split(/['’]/).filter(Boolean) : [w];
  for (const p of parts) {
    out.push(p);
    if (!a.trigrams || p.length < 6) continue;
    const low = p.toLowerCase();
    for (let i = 0; i + 3 <= low.length; i++) out.push(low.slice(i, i + 3));
  }
}

/** The terms of `text` under analysis `a`, joined by spaces. */
function analyse(text: string, a: Analysis): string {
  const out: string[] = [];
  const t = text.normalize("NFKC");
  for (const s of words.segment(t)) {
    if (!s.isWordLike) continue;
    const w = s.segment;
    if (CJK.test(w)) {
      if (a.words) out.push(w);
    } else if (HANGUL.test(w)) {
      if (a.hangulWords || !a.bigrams) out.push(w);
      if (a.bigrams) bigramsOf(w, out);
    } else spacedWord(w, a, out);
  }
  if (a.bigrams) for (const m of t.matchAll(CJK_RUNS)) bigramsOf(m[0], out);
  return out.join(" ");
}

/** The text with each run of an unspaced script replaced by its words, spaced; the rest as it was. */
function spaced(text: string): string {
  return text.replace(UNSPACED, (run) =>
    [...words.segment(run)]
      .filter((s) => s.isWordLike)
      .map((s) => s.segment)
      .join(" "),
  );
}

/** spaced(), then the character bigrams of each CJK run, appended. */
function spacedBigrams(text: string): string {
  const out: string[] = [];
  for (const m of text.normalize("NFKC").matchAll(CJK_RUNS)) bigramsOf(m[0], out);
  return `${spaced(text)} ${out.join(" ")}`;
}

interface Variant {
  name: string;
  fts: Parameters<typeof Index.fts>[0];
  analysis?: Analysis;
}

function variants(lang: string): Variant[] {
  const { stem, compounds } = LANGS[lang] ?? { stem: "English" };
  const ws = { baseTokenizer: "whitespace" as const, language: stem, stem: true };
  return [
    { name: "today", fts: undefined },
    { name: "icu", fts: { baseTokenizer: "icu", language: stem, stem: true } },
    { name: "ngram2-3", fts: { baseTokenizer: "ngram", ngramMinLength: 2, ngramMaxLength: 3 } },
    { name: "W", fts: ws, analysis: { words: true } },
    { name: "B", fts: ws, analysis: { bigrams: true } },
    { name: "W+B", fts: ws, analysis: { words: true, bigrams: true } },
    {
      name: "plan",
      fts: ws,
      analysis: { words: true, bigrams: true, hangulWords: true, elisions: true, trigrams: compounds === true },
    },
  ];
}

const clean = (t: string) => t.replace(/[^\p{L}\p{N}\p{M}_]+/gu, " ").trim();
const dirBytes = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce(
    (n, e) => n + (e.isDirectory() ? dirBytes(join(dir, e.name)) : statSync(join(dir, e.name)).size),
    0,
  );

/** hit@10 and nDCG@10 of `rank` (0-based, -1 for missing) over all queries. */
function score(ranks: number[]): string {
  const { hit, ndcg } = scores(ranks);
  return `hit@10 ${hit.toFixed(3)} nDCG@10 ${ndcg.toFixed(3)}`;
}

/** The rank of each query's own document under one variant, the index's size and the analysis speed. */
async function keywordRanks(docs: Doc[], v: Variant): Promise<{ ranks: number[]; kb: number; speed: number }> {
  const prep = (t: string) => (v.analysis ? analyse(t, v.analysis) : t);
  const started = performance.now();
  const rows = docs.map((d, id) => ({ id, text: prep(d.body) }));
  const speed = docs.reduce((n, d) => n + d.body.length, 0) / (performance.now() - started) / 1000;
  const dir = mkdtempSync(join(tmpdir(), "ragd-languages-"));
  try {
    const table = await (await connect(dir)).createTable("t", rows);
    await table.createIndex("text", { config: Index.fts(v.fts) });
    const ranks: number[] = [];
    for (const [i, d] of docs.entries()) {
      const q = clean(prep(clean(d.title)));
      const found = q
        ? await table.query().fullTextSearch(new MatchQuery(q, "text")).select(["id", "_score"]).limit(10).toArray()
        : [];
      ranks.push(found.findIndex((r) => r.id === i));
    }
    return { ranks, kb: dirBytes(join(dir, "t.lance", "_indices")) / 1024, speed };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The BM25 reference (`B`): character bigrams over CJK runs and Hangul words,
 * words with the language's Snowball stemmer elsewhere; each query's document rank.
 */
export async function bm25Ranks(docs: Doc[], lang: string): Promise<number[]> {
  return (await keywordRanks(docs, variants(lang).find((v) => v.name === "B")!)).ranks;
}

async function keywordRun(docs: Doc[], v: Variant): Promise<string> {
  const { ranks, kb, speed } = await keywordRanks(docs, v);
  const analysis = v.analysis ? `, analysis ${speed.toFixed(2)} Mchar/s` : "";
  return `${v.name.padEnd(10)} ${score(ranks)}  index ${kb.toFixed(0)} KiB${analysis}`;
}

function vectorRun(docs: Doc[], name: string, prep: (t: string) => string): string {
  const vectors = docs.map((d) => embedBuiltin(prep(d.body)));
  const ranks = docs.map((d, i) => {
    const q = embedBuiltin(prep(d.title));
    const dot = (v: Float32Array) => v.reduce((s, x, k) => s + x * q[k]!, 0);
    const mine = dot(vectors[i]!);
    return vectors.filter((v, j) => j !== i && dot(v) > mine).length;
  });
  return `${name.padEnd(10)} ${score(ranks)}`;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2).filter((a) => !a.startsWith("--"));
  const source: SetSource = args[0] === "debref" ? "debref" : "gnome";
  for (const lang of (args[1] ?? DEFAULT_LANGS[source]).split(",")) {
    const docs = languageSet(source, lang);
    if (typeof docs === "string") {
      console.log(`## ${lang}: ${docs}`);
      continue;
    }
    const chars = docs.reduce((n, d) => n + d.body.length, 0);
    console.log(`## ${source} ${lang}: ${docs.length} documents, ${chars} characters`);
    for (const v of variants(lang)) console.log(`  ${await keywordRun(docs, v)}`);
    console.log(`  ${vectorRun(docs, "vec raw", (t) => t)}`);
    console.log(`  ${vectorRun(docs, "vec spaced", spaced)}`);
    console.log(`  ${vectorRun(docs, "vec sp+B", spacedBigrams)}`);
  }
}

if (import.meta.main) {
  if (process.argv.includes("--ragd")) await (await import("./languages-ragd")).runThroughRagd();
  else await main();
}
