/**
 * `bench/languages.ts --ragd`: the language sets (language-sets.ts) through ragd itself,
 * an in-process app on real SQLite and LanceDB (test/support/app.ts), one pipeline per
 * language, embedding model and `language` setting: `legacy` (the analysis of pipelines
 * made before the setting: LanceDB's English analysis of `text`, raw text to the embedder)
 * and `auto` (the default). Every page is a text source, its title the query, asked in
 * keyword, vector and hybrid mode; a page ranks where its best chunk ranks. Beside them,
 * the BM25 reference computed in the same run (languages.ts `B`: character
 * bigrams for Chinese and Japanese, Hangul bigrams for Korean, stemmed words elsewhere),
 * and the targets: auto hybrid ≥ BM25 and ≥ its own keyword and vector; keyword ≥ 0.95 × BM25.
 *
 *   ./node_modules/.bin/bun bench/languages.ts --ragd [gnome|debref] [LANG,…]
 *       [--models builtin,builtin-glove] [--settings legacy,auto] [--alphas 0,0.05]
 *
 * `--alphas` asks every title again in hybrid mode at each blend given (`hybridAlpha`).
 */
import { parseArgs } from "node:util";
import { updateCollection } from "../src/db/repo/collections";
import { distinctInOrder } from "../src/retrieval/metrics";
import { makeApp } from "../test/support/app";
import { Client } from "../test/support/ingest";
import { DEFAULT_LANGS, type Doc, languageSet, rankOf, scores, type SetSource } from "./language-sets";
import { bm25Ranks } from "./languages";

const MODES = ["keyword", "vector", "hybrid"] as const;
/** Enough results that ten distinct pages are among them when pages have several chunks. */
const TOP_K = 40;

interface Figures {
  hit: number;
  ndcg: number;
}

/** Adds every page as a text source named by its index, waiting out a full queue (429). */
async function ingestAll(c: Client, id: string, docs: Doc[]): Promise<number> {
  const t0 = performance.now();
  for (const [i, d] of docs.entries()) {
    for (;;) {
      const r = await c.addSource(id, { type: "text", name: String(i), content: d.body });
      if (r.status === 201) break;
      if (r.status !== 429) throw new Error(`source ${i}: ${r.status} ${r.text}`);
      await Bun.sleep(200);
    }
  }
  const all = await c.allSettled(id, 30 * 60_000);
  const failed = all.filter((s) => s.status === "failed");
  if (failed.length) throw new Error(`${failed.length} sources failed: ${failed[0]!.error}`);
  return (performance.now() - t0) / 1000;
}

/** Each mode's figures over all titles, and the languages the queries were analysed as. */
async function askAll(c: Client, key: string, docs: Doc[], alphas: number[]) {
  const out = {} as Record<string, Figures>;
  const languages = new Map<string, number>();
  const asked = [
    ...MODES.map((mode) => ({ label: mode, mode })),
    ...alphas.map((a) => ({ label: `hybrid α ${a}`, mode: "hybrid", hybridAlpha: a })),
  ];
  for (const { label, ...how } of asked) {
    const ranks: number[] = [];
    const mode = how.mode;
    for (const [i, d] of docs.entries()) {
      const r = await c.query(key, { query: d.title, ...how, topK: TOP_K });
      if (r.status !== 200) throw new Error(`query ${d.title} (${mode}): ${r.status} ${r.text}`);
      const names = (r.body.results as { metadata: { sourceName: string } }[]).map((h) => h.metadata.sourceName);
      ranks.push(rankOf(distinctInOrder(names), i));
      if (mode === "keyword") {
        const lang = r.body.queryLanguage ?? "none";
        languages.set(lang, (languages.get(lang) ?? 0) + 1);
      }
    }
    out[label] = scores(ranks);
  }
  return { figures: out, languages };
}

const f3 = (x: number) => x.toFixed(3);

/** One line per target of the issue, for the auto rows of one model. */
function targets(lang: string, model: string, auto: Record<string, Figures>, bm25: Figures): string[] {
  const h = auto.hybrid!.ndcg;
  const mark = (ok: boolean) => (ok ? "met" : "MISSED");
  return [
    `  ${lang} ${model} auto: hybrid ${f3(h)} vs BM25 ${f3(bm25.ndcg)} ${mark(h >= bm25.ndcg)}; ` +
      `vs keyword ${f3(auto.keyword!.ndcg)} ${mark(h >= auto.keyword!.ndcg)}, vector ${f3(auto.vector!.ndcg)} ${mark(h >= auto.vector!.ndcg)}; ` +
      `keyword/BM25 ${f3(auto.keyword!.ndcg / bm25.ndcg)} ${mark(auto.keyword!.ndcg >= 0.95 * bm25.ndcg)}`,
  ];
}

export async function runThroughRagd(): Promise<void> {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2).filter((a) => a !== "--ragd"),
    allowPositionals: true,
    options: {
      models: { type: "string", default: "builtin,builtin-glove" },
      settings: { type: "string", default: "legacy,auto" },
      alphas: { type: "string", default: "" },
    },
  });
  const source: SetSource = positionals[0] === "debref" ? "debref" : "gnome";
  const langs = (positionals[1] ?? DEFAULT_LANGS[source]).split(",");
  const alphas = values.alphas ? values.alphas.split(",").map(Number) : [];
  const t = await makeApp({ workers: 1, queryRate: 1_000_000, queryBurst: 1_000_000 });
  const summary: string[] = [];
  try {
    const c = await Client.create(t);
    for (const lang of langs) {
      const docs = languageSet(source, lang);
      if (typeof docs === "string") {
        console.log(`## ${lang}: ${docs}`);
        continue;
      }
      const chars = docs.reduce((n, d) => n + d.body.length, 0);
      console.log(`\n## ${source} ${lang}: ${docs.length} pages, ${chars} characters`);
      const bm25 = scores(await bm25Ranks(docs, lang));
      const table: Record<string, Record<string, string>> = {
        "BM25 (B)": { "hit@10": f3(bm25.hit), "nDCG@10": f3(bm25.ndcg) },
      };
      for (const model of values.models!.split(",")) {
        for (const setting of values.settings!.split(",")) {
          const id = await c.pipeline({ name: `${lang} ${model} ${setting}`, embeddingModel: model });
          if (setting === "legacy")
            await t.services.db.atomically((tx) =>
              updateCollection(tx, id, { language: "legacy", indexLanguage: "legacy" }),
            );
          else if (setting !== "auto") await c.call("PATCH", `/api/rag/pipelines/${id}`, { language: setting });
          const seconds = await ingestAll(c, id, docs);
          // Every row in the full-text index before the queries: rows outside it score by the
          // rows a look-up is narrowed to (vectors/tail-scores.ts), and whether upkeep had run
          // moved hybrid figures by up to 0.007 between runs of the same code.
          await t.services.vectorStore.upkeep();
          const { figures, languages } = await askAll(c, await c.key(id), docs, alphas);
          for (const [label, f] of Object.entries(figures))
            table[`${model} ${setting} ${label}`] = { "hit@10": f3(f.hit), "nDCG@10": f3(f.ndcg) };
          const seen = [...languages].sort((a, b) => b[1] - a[1]).map(([l, n]) => `${l} ${n}`);
          console.log(
            `  ${model} ${setting}: ingested in ${seconds.toFixed(1)} s; queries analysed as ${seen.join(", ")}`,
          );
          if (setting === "auto") summary.push(...targets(lang, model, figures, bm25));
        }
      }
      console.table(table);
    }
  } finally {
    await t.close();
  }
  console.log(`\nTargets (nDCG@10):\n${summary.join("\n")}`);
}
