/**
 * Offline vector-only quality and speed of the built-in embedders, without the
 * server: chunks the corpora with ragd's default chunking (recursive, 1000/200),
 * embeds every chunk with `builtin` and with the word-vector part of
 * `builtin-glove`, and ranks by exact cosine, for a grid of word-vector weights β.
 *
 *   ./node_modules/.bin/bun bench/word-vectors.ts [--speed] [β ...]
 *
 * Prints nDCG@10, hit@1 and recall@100 on SciFact half a (even query ids: the half
 * the weights are chosen on), half b and SQuAD dev (1,000 sampled questions, as
 * bench/squad.ts), and the embedding throughput of each model in chunks/s (only
 * that with `--speed`).
 */
import { existsSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { embedBuiltin } from "../src/embed/builtin";
import { GLOVE_WEIGHT, embedGlove, embedWords } from "../src/embed/builtin-glove";
import { chunkText } from "../src/ingest/chunk";
import { hitAt, ndcg, recall } from "../src/retrieval/metrics";
import { DATASETS, loadCorpus, random } from "./support";

interface Set {
  name: string;
  chunks: { doc: string; text: string }[];
  queries: { id: string; text: string; rel: Map<string, number> }[];
}

const chunkAll = (docs: { id: string; content: string }[]) =>
  docs.flatMap((d) =>
    chunkText(d.content, { strategy: "recursive", size: 1000, overlap: 200 }).map((c) => ({ doc: d.id, text: c.text })),
  );

function scifact(): Set[] {
  const dir = join(DATASETS, "scifact");
  const qrels = new Map<string, Map<string, number>>();
  for (const line of readFileSync(join(dir, "qrels", "test.tsv"), "utf8")
    .split("\n")
    .slice(1)) {
    const [q, d, s] = line.split("\t");
    if (!q || !d) continue;
    if (!qrels.has(q)) qrels.set(q, new Map());
    qrels.get(q)!.set(d, Number(s));
  }
  const queries = readFileSync(join(dir, "queries.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { _id: string; text: string })
    .filter((q) => qrels.has(q._id))
    .map((q) => ({ id: q._id, text: q.text, rel: qrels.get(q._id)! }));
  const chunks = chunkAll(loadCorpus().map((d) => ({ id: d.id, content: `${d.title}\n\n${d.text}` })));
  return [
    { name: "SciFact a", chunks, queries: queries.filter((q) => Number(q.id) % 2 === 0) },
    { name: "SciFact b", chunks, queries: queries.filter((q) => Number(q.id) % 2 === 1) },
  ];
}

function squad(): Set {
  type Squad = { data: { paragraphs: { context: string; qas: { id: string; question: string }[] }[] }[] };
  const data = JSON.parse(readFileSync(join(DATASETS, "squad", "dev-v1.1.json"), "utf8")) as Squad;
  const docs: { id: string; content: string }[] = [];
  const all: Set["queries"] = [];
  for (const a of data.data)
    for (const p of a.paragraphs) {
      const id = `p${docs.length}`;
      docs.push({ id, content: p.context });
      for (const qa of p.qas) all.push({ id: qa.id, text: qa.question, rel: new Map([[id, 1]]) });
    }
  const rnd = random(14);
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  return { name: "SQuAD", chunks: chunkAll(docs), queries: all.slice(0, 1000) };
}

/** Chunks per second of `embed` over `texts` (after one warm-up pass over 200). */
function throughput(texts: string[], embed: (t: string) => unknown): number {
  for (const t of texts.slice(0, 200)) embed(t);
  const t0 = performance.now();
  for (const t of texts) embed(t);
  return texts.length / ((performance.now() - t0) / 1000);
}

const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};

/** Metrics of ranking by (hashed cosine + β² · word cosine) / (1 + β²); β < 0 means word vectors alone. */
function score(set: Set, hashed: Float32Array[], words: Float32Array[], beta: number) {
  let n10 = 0;
  let h1 = 0;
  let r100 = 0;
  const b2 = beta * beta;
  for (const q of set.queries) {
    const qh = embedBuiltin(q.text);
    const qw = embedWords(q.text);
    const best = new Map<string, number>();
    set.chunks.forEach((c, i) => {
      const s = beta < 0 ? dot(qw, words[i]) : dot(qh, hashed[i]) + b2 * dot(qw, words[i]);
      if (s > (best.get(c.doc) ?? -Infinity)) best.set(c.doc, s);
    });
    const ranked = [...best].sort((x, y) => y[1] - x[1]).map(([d]) => d);
    n10 += ndcg(ranked, q.rel, 10);
    h1 += hitAt(ranked, q.rel, 1);
    r100 += recall(ranked, q.rel, 100);
  }
  const n = set.queries.length;
  return { "nDCG@10": (n10 / n).toFixed(3), "hit@1": (h1 / n).toFixed(3), "recall@100": (r100 / n).toFixed(3) };
}

if (!existsSync(join(DATASETS, "scifact", "corpus.jsonl")) || !existsSync(join(DATASETS, "squad"))) {
  console.log("SciFact or SQuAD not found; skipping.");
  process.exit(0);
}
const speedOnly = process.argv.includes("--speed");
const betas = process.argv
  .slice(2)
  .filter((a) => a !== "--speed")
  .map(Number);
const grid = betas.length ? betas : [0, 0.5, 0.75, 1, 1.25, 1.5, -1];
const sets = [...scifact(), squad()];
const texts = sets[0]!.chunks.map((c) => c.text);
// Best of three passes each, taken in turn, so that a burst of other work on the machine
// does not land on one model only.
const best = { builtin: 0, glove: 0 };
for (let pass = 0; pass < 3; pass++) {
  best.builtin = Math.max(best.builtin, throughput(texts, embedBuiltin));
  best.glove = Math.max(
    best.glove,
    throughput(texts, (t) => embedGlove(t)),
  );
}
console.log(
  `throughput on ${texts.length} SciFact chunks (best of 3): builtin ${best.builtin.toFixed(0)}/s, ` +
    `builtin-glove ${best.glove.toFixed(0)}/s (default β ${GLOVE_WEIGHT}); load average ${loadavg()[0].toFixed(2)}`,
);
if (speedOnly) process.exit(0);
for (const set of [sets[0]!, sets[2]!]) {
  const hashed = set.chunks.map((c) => embedBuiltin(c.text));
  const words = set.chunks.map((c) => embedWords(c.text));
  const runs = set === sets[0] ? [sets[0]!, sets[1]!] : [set];
  for (const run of runs) {
    const table: Record<string, Record<string, string>> = {};
    for (const beta of grid) table[beta < 0 ? "words only" : `β ${beta}`] = score(run, hashed, words, beta);
    console.log(`\n${run.name}: ${run.queries.length} queries, ${run.chunks.length} chunks (β 0 = builtin)`);
    console.table(table);
  }
}
