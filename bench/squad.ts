/**
 * Retrieval quality on SQuAD v1.1 dev as question → its paragraph, end to end
 * through the compiled binary.
 *
 *   ./node_modules/.bin/bun bench/squad.ts [questions] [--dump file] [--model name]
 *
 * Every paragraph of ../shared/datasets/squad/dev-v1.1.json (2,067, from 48
 * articles) becomes a text source named by its position; a deterministic sample of
 * the questions (1,000 by default) is asked in each mode with topK 100, the one
 * relevant document being the question's paragraph (bench/quality.ts has the
 * metrics). Paragraphs of one article share their topic, so the task rewards
 * matching the question's exact content, not only its subject.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { benchArgs, runQuality, type BenchDoc, type BenchQuery } from "./quality";
import { DATASETS, random } from "./support";

const FILE = join(DATASETS, "squad", "dev-v1.1.json");

interface Squad {
  data: { title: string; paragraphs: { context: string; qas: { id: string; question: string }[] }[] }[];
}

async function main(): Promise<void> {
  if (!existsSync(FILE)) {
    console.log(`SQuAD not found at ${FILE}; skipping.`);
    return;
  }
  const { dump, model, rest } = benchArgs();
  const sample = rest[0] ? Number(rest[0]) : 1000;
  const squad = JSON.parse(readFileSync(FILE, "utf8")) as Squad;
  const docs: BenchDoc[] = [];
  const all: BenchQuery[] = [];
  for (const article of squad.data) {
    for (const p of article.paragraphs) {
      const id = `p${docs.length}`;
      docs.push({ id, content: p.context });
      for (const qa of p.qas) all.push({ id: qa.id, text: qa.question, rel: new Map([[id, 1]]) });
    }
  }
  // A seeded shuffle: the same sample on every run.
  const rnd = random(14);
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  await runQuality({ name: "SQuAD v1.1 dev (question → paragraph)", docs, queries: all.slice(0, sample), model }, dump);
}

await main();
