/**
 * Offline comparison of hybrid fusions on ranked lists dumped by the quality
 * benchmarks (`bun bench/scifact.ts --dump s.jsonl`, `bun bench/squad.ts --dump q.jsonl`):
 *
 *   ./node_modules/.bin/bun bench/fusion-tune.ts s.jsonl q.jsonl
 *
 * For each fusion and parameter it prints nDCG@10 on SciFact half a (even query
 * ids: the half to choose on), half b and SQuAD, so a choice made on half a can be
 * confirmed on data it was not made on. Keyword scores are ragd's saturated BM25,
 * vector scores cosine similarity; a chunk missing from the vector list gets that
 * list's lowest score (an upper bound of its cosine), one missing from the keyword
 * list gets 0.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ndcg } from "../src/retrieval/metrics";
import { DATASETS } from "./support";

type List = [string, number][];
interface QueryLists {
  q: string;
  keyword: List;
  vector: List;
}

function load(path: string): QueryLists[] {
  const by = new Map<string, QueryLists>();
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as { q: string; label: string; list: List };
    if (r.label !== "keyword" && r.label !== "vector") continue;
    const e = by.get(r.q) ?? { q: r.q, keyword: [], vector: [] };
    e[r.label] = r.list;
    by.set(r.q, e);
  }
  return [...by.values()];
}

function scifactRel(): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const line of readFileSync(join(DATASETS, "scifact", "qrels", "test.tsv"), "utf8")
    .split("\n")
    .slice(1)) {
    const [q, d, s] = line.split("\t");
    if (!q || !d) continue;
    if (!out.has(q)) out.set(q, new Map());
    out.get(q)!.set(d, Number(s));
  }
  return out;
}

function squadRel(): Map<string, Map<string, number>> {
  const squad = JSON.parse(readFileSync(join(DATASETS, "squad", "dev-v1.1.json"), "utf8"));
  const out = new Map<string, Map<string, number>>();
  let n = 0;
  for (const a of squad.data)
    for (const p of a.paragraphs) {
      const id = `p${n++}`;
      for (const qa of p.qas) out.set(qa.id, new Map([[id, 1]]));
    }
  return out;
}

type Fuse = (k: List, v: List) => List;

const stats = (xs: number[]) => {
  const mean = xs.reduce((a, b) => a + b, 0) / (xs.length || 1);
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length || 1));
  return { mean, sd, min: Math.min(...xs), max: Math.max(...xs) };
};

function convex(norm: (l: List) => (s: number) => number, alpha: number, missingVec: "min" | "zero" | number): Fuse {
  return (k, v) => {
    const nk = norm(k);
    const nv = norm(v);
    const last = v.length ? v[v.length - 1]![1] : 0;
    const vMissing = missingVec === "zero" ? 0 : nv(missingVec === "min" ? last : last * missingVec);
    const ids = new Set([...k.map((x) => x[0]), ...v.map((x) => x[0])]);
    const km = new Map(k);
    const vm = new Map(v);
    return [...ids]
      .map((id): [string, number] => {
        const ks = km.has(id) ? nk(km.get(id)!) : 0;
        const vs = vm.has(id) ? nv(vm.get(id)!) : vMissing;
        return [id, alpha * vs + (1 - alpha) * ks];
      })
      .sort((a, b) => b[1] - a[1]);
  };
}

const identity = () => (s: number) => s;
const minmax = (l: List) => {
  const { min, max } = stats(l.map((x) => x[1]));
  return (s: number) => (max > min ? (s - min) / (max - min) : 1);
};
const dbsf = (l: List) => {
  const { mean, sd } = stats(l.map((x) => x[1]));
  return (s: number) => (sd > 0 ? Math.min(1, Math.max(0, (s - (mean - 3 * sd)) / (6 * sd))) : 0.5);
};

function rrf(k0: number, alpha: number): Fuse {
  return (k, v) => {
    const m = new Map<string, number>();
    k.forEach(([id], i) => {
      m.set(id, (m.get(id) ?? 0) + (1 - alpha) / (k0 + i + 1));
    });
    v.forEach(([id], i) => {
      m.set(id, (m.get(id) ?? 0) + alpha / (k0 + i + 1));
    });
    return [...m].sort((a, b) => b[1] - a[1]);
  };
}

function evaluate(data: QueryLists[], rel: Map<string, Map<string, number>>, fuse: Fuse): number {
  let sum = 0;
  for (const d of data) {
    const ranked = [...new Set(fuse(d.keyword, d.vector).map(([id]) => id.slice(0, id.lastIndexOf("#"))))];
    sum += ndcg(ranked, rel.get(d.q)!, 10);
  }
  return sum / data.length;
}

const [sPath, qPath] = process.argv.slice(2);
const sci = load(sPath!);
const sq = qPath ? load(qPath) : [];
const sRel = scifactRel();
const qRel = qPath ? squadRel() : new Map();
const halfA = sci.filter((d) => Number(d.q) % 2 === 0);
const halfB = sci.filter((d) => Number(d.q) % 2 !== 0);

const fusions: [string, Fuse][] = [
  ["keyword", (k) => k],
  ["vector", (_k, v) => v],
];
for (const k0 of [1, 5, 10, 20, 60])
  for (const a of [0.2, 0.3, 0.4, 0.5]) fusions.push([`rrf k=${k0} α=${a}`, rrf(k0, a)]);
for (const a of [0.05, 0.1, 0.15, 0.2, 0.25, 0.3]) {
  fusions.push([`raw.9 α=${a}`, convex(identity, a, 0.9)]);
  fusions.push([`raw.8 α=${a}`, convex(identity, a, 0.8)]);
}
for (const a of [0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6]) {
  fusions.push([`raw α=${a}`, convex(identity, a, "min")]);
  fusions.push([`raw0 α=${a}`, convex(identity, a, "zero")]);
  fusions.push([`minmax α=${a}`, convex(minmax, a, "min")]);
  fusions.push([`dbsf α=${a}`, convex(dbsf, a, "min")]);
}
const rows: Record<string, Record<string, string>> = {};
for (const [name, f] of fusions) {
  rows[name] = {
    "SciFact a": evaluate(halfA, sRel, f).toFixed(3),
    "SciFact b": evaluate(halfB, sRel, f).toFixed(3),
    SQuAD: sq.length ? evaluate(sq, qRel, f).toFixed(3) : "-",
  };
}
console.table(rows);
const dist = (xs: number[]) =>
  Object.values(stats(xs))
    .map((x) => x.toFixed(3))
    .join(" ");
const at = (data: QueryLists[], key: "keyword" | "vector", i: number) =>
  data.filter((d) => d[key].length > i).map((d) => d[key][i]![1]);
for (const [name, data] of [
  ["SciFact", sci],
  ["SQuAD", sq],
] as const)
  for (const key of ["keyword", "vector"] as const)
    console.log(
      `${name} ${key} mean sd min max: top1 ${dist(at(data, key, 0))}; #10 ${dist(at(data, key, 9))}; #100 ${dist(at(data, key, 99))}`,
    );
