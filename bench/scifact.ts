/**
 * Retrieval quality on BEIR SciFact, end to end through the compiled binary.
 *
 *   ./node_modules/.bin/bun bench/scifact.ts [--half a|b] [--dump file] [--model name] [--language L,…]
 *
 * Ingests the 5,183 abstracts of ../shared/datasets/scifact/corpus.jsonl as text
 * sources (title + "\n\n" + text, named by corpus id) into one pipeline with the
 * default settings (builtin-glove unless `--model`), then asks the 300 test queries (qrels/test.tsv) in each
 * mode with topK 100 (bench/quality.ts has the metrics). `--language legacy,auto` runs
 * once per `language` setting, one after the other (`legacy`: a pipeline as made before
 * the setting; English answers must stay within 0.005 nDCG@10 of it); default `auto`. SciFact has no training
 * queries: `--half a` (even query ids) is the half fusion was tuned on, `--half b`
 * (odd ids) the half it was not. Reference: BM25 nDCG@10 ≈ 0.665.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { benchArgs, runQuality, type BenchQuery } from "./quality";
import { DATASETS, loadCorpus } from "./support";

const DIR = join(DATASETS, "scifact");

/** query id → (corpus id → relevance) from a BEIR qrels file. */
function readQrels(path: string): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const line of readFileSync(path, "utf8").split("\n").slice(1)) {
    const [q, d, s] = line.split("\t");
    if (!q || !d) continue;
    if (!out.has(q)) out.set(q, new Map());
    out.get(q)!.set(d, Number(s));
  }
  return out;
}

async function main(): Promise<void> {
  if (!existsSync(join(DIR, "corpus.jsonl"))) {
    console.log(`SciFact not found at ${DIR}; skipping.`);
    return;
  }
  const { dump, model, rest } = benchArgs();
  const at = rest.indexOf("--language");
  const languages = at >= 0 ? rest.splice(at, 2)[1]!.split(",") : [undefined];
  const half = rest[0] === "--half" ? rest[1] : undefined;
  const qrels = readQrels(join(DIR, "qrels", "test.tsv"));
  const queries: BenchQuery[] = readFileSync(join(DIR, "queries.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { _id: string; text: string })
    .filter((q) => qrels.has(q._id))
    .filter((q) => !half || (Number(q._id) % 2 === 0) === (half === "a"))
    .map((q) => ({ id: q._id, text: q.text, rel: qrels.get(q._id)! }));
  const docs = loadCorpus().map((d) => ({ id: d.id, content: `${d.title}\n\n${d.text}` }));
  const name = `SciFact (BEIR test${half ? `, half ${half}` : ""})`;
  for (const language of languages) await runQuality({ name, docs, queries, model, language }, dump);
  console.log("reference: BM25 nDCG@10 ≈ 0.665");
}

await main();
