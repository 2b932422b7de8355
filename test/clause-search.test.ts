/**
 * A keyword search of several clauses (terms, variants, grams) runs one full-text query
 * per clause and sums their scores (vectors/clause-search.ts), where one BooleanQuery
 * scored every match of each clause. It must rank as that BooleanQuery ranks: on a real
 * LanceDB table whose grams clause matches every row and whose terms tie by the
 * hundred (what made the lists read deeper), the same score at every rank, with every
 * row of the table in the index and with a tail of rows outside it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BooleanQuery, MatchQuery, Occur, type Table } from "@lancedb/lancedb";
import { searchClauses } from "../src/vectors/clause-search";
import { openLance, type LanceConnection } from "../src/vectors/connection";
import { ensureFtsIndex } from "../src/vectors/fts-index";
import { keywordHits } from "../src/vectors/keyword-hits";
import type { AnalysedQuery } from "../src/vectors/full-text";

const SYLLABLES = "ka ro mi tan vel sor qu ix len dra po ne".split(" ");
const random = (seed: number) => () =>
  ((seed = Math.imul(seed ^ (seed >>> 15), 2246822507) + 0x9e3779b9) >>> 0) / 2 ** 32;
const rnd = random(5);
const WORDS = Array.from({ length: 60 }, () =>
  Array.from({ length: 3 }, () => SYLLABLES[Math.floor(rnd() * 12)]).join(""),
);
const trigrams = (w: string) => Array.from({ length: w.length - 2 }, (_, i) => w.slice(i, i + 3));

/** `n` rows of six made-up words each: the terms tie often, the grams match nearly every row. */
function rows(from: number, n: number) {
  return Array.from({ length: n }, (_, k) => {
    const i = from + k;
    const words = Array.from({ length: 6 }, () => WORDS[Math.floor(rnd() * WORDS.length)]!);
    return {
      id: `d${i}:0`,
      document_id: `d${i}`,
      chunk_index: 0,
      text: words.join(" "),
      start: 0,
      end: 10,
      terms: words.join(" "),
      grams: words.flatMap(trigrams).join(" "),
    };
  });
}

let dir: string;
let conn: LanceConnection;
let table: Table;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ragd-clauses-"));
  conn = await openLance(dir);
  table = await conn.createTable("t", rows(0, 3000));
  await ensureFtsIndex(table);
}, 60_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The query of two of the words: its terms, and their grams at 0.3 (as text/analyze.ts gives a compound language's). */
function analysed(a: string, b: string): AnalysedQuery {
  return { terms: `${a} ${b}`, grams: [...trigrams(a), ...trigrams(b)].join(" "), gramBoost: 0.3, count: 2 };
}

/** The scores, best first, one BooleanQuery of the same clauses gives. */
async function booleanScores(q: AnalysedQuery, limit: number): Promise<number[]> {
  const query = new BooleanQuery([
    [Occur.Should, new MatchQuery(q.terms, "terms")],
    [Occur.Should, new MatchQuery(q.grams, "grams", { boost: q.gramBoost })],
  ]);
  const found = await table.query().fullTextSearch(query).select(["id", "_score"]).limit(limit).toArray();
  return found.map((r) => r._score as number);
}

const BM25_K = 4;
const saturated = (raw: number, count: number) => raw / count / (raw / count + BM25_K);

describe("a keyword search of several clauses", () => {
  for (const tail of [false, true])
    test(`ranks as one BooleanQuery of them${tail ? ", with rows outside the index" : ""}`, async () => {
      if (tail) await table.add(rows(3000, 400));
      let compared = 0;
      for (let i = 0; i < 12; i++) {
        const q = analysed(WORDS[(i * 7) % WORDS.length]!, WORDS[(i * 11 + 3) % WORDS.length]!);
        for (const limit of [10, 50]) {
          const expected = (await booleanScores(q, limit)).map((s) => saturated(s, 2));
          const hits = await keywordHits(table, { text: q.terms, analysed: q }, limit, null);
          expect(hits.length).toBe(expected.length);
          for (const [k, h] of hits.entries()) expect(h.score).toBeCloseTo(expected[k]!, 6);
          compared += hits.length;
        }
      }
      expect(compared).toBeGreaterThan(500);
    });
});

describe("searchClauses", () => {
  type Hit = { id: string; score: number };
  /** A clause's list over fixed scores, counting how deep it was read. */
  const listOf = (scores: Record<string, number>, reads: number[]) => (limit: number) => {
    reads.push(limit);
    return Object.entries(scores)
      .map(([id, score]) => ({ id, score }))
      .sort((a, b) => b.score - a.score)
      .slice(0, limit);
  };

  test("reads a clause deeper while a row that could still rank misses its score", async () => {
    // Row x is first in clause A; its clause-B score (5) lies below 8 rows of B's.
    const a = { x: 10, y: 1, z: 0.5 };
    const b = { ...Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`b${i}`, 20 - i])), x: 5, y: 0.1 };
    const reads: number[][] = [[], []];
    const lists = [listOf(a, reads[0]!), listOf(b, reads[1]!)];
    const clauses = [new MatchQuery("a", "terms"), new MatchQuery("b", "grams")];
    const best = await searchClauses<Hit>(clauses, 2, async (c, limit) =>
      lists[clauses.indexOf(c as MatchQuery)]!(limit),
    );
    expect(best).toEqual([
      { id: "b0", score: 20 },
      { id: "b1", score: 19 },
    ]);
    const top = await searchClauses<Hit>(clauses, 9, async (c, limit) =>
      lists[clauses.indexOf(c as MatchQuery)]!(limit),
    );
    // x: 10 + 5 = 15, found once B's list was read deeper than its first 9.
    expect(top.find((h) => h.id === "x")?.score).toBe(15);
    expect(reads[1]!.some((n) => n > 9)).toBe(true);
  });

  test("a score missing at the deepest list counts 0", async () => {
    // x matches B 51st of B's rows; B's list is read no deeper than 10 rows.
    const b = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`b${i}`, 100 - i]));
    const reads: number[] = [];
    const clauses = [new MatchQuery("a", "terms"), new MatchQuery("b", "grams")];
    const lists = [listOf({ x: 200 }, []), listOf({ ...b, x: 1 }, reads)];
    const list = async (c: unknown, limit: number) => lists[clauses.indexOf(c as MatchQuery)]!(limit);
    const best = await searchClauses<Hit>(clauses, 3, list, 10);
    expect(best).toEqual([
      { id: "x", score: 200 },
      { id: "b0", score: 100 },
      { id: "b1", score: 99 },
    ]);
    expect(reads).toEqual([3, 10]);
  });

  test("at once, a clause's list read deeper is read to the deepest in one read, with the same answer", async () => {
    // x is first in A; its B score (1) lies below 150 of B's rows.
    const b = { ...Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`b${i}`, 1.5 + i / 100])), x: 1 };
    const clauses = [new MatchQuery("a", "terms"), new MatchQuery("b", "grams")];
    const run = async (atOnce: boolean) => {
      const reads: number[] = [];
      const lists = [listOf({ x: 10 }, []), listOf(b, reads)];
      const list = async (c: unknown, limit: number) => lists[clauses.indexOf(c as MatchQuery)]!(limit);
      return { best: await searchClauses<Hit>(clauses, 9, list, 1000, atOnce), reads };
    };
    const rounds = await run(false);
    const once = await run(true);
    expect(once.best).toEqual(rounds.best);
    expect(once.best[0]).toEqual({ id: "x", score: 11 });
    expect(rounds.reads).toEqual([9, 36, 144, 576]);
    expect(once.reads).toEqual([9, 1000]);
  });
});
