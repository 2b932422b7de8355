/**
 * An evaluation set as a client sends it: typed queries or JSON Lines, checked and
 * with every expected source resolved to a source id of the pipeline (a source may
 * be named by its id or its externalId). Unknown sources are 400 naming them.
 */
import type { Db } from "../../db/client";
import { listDocuments } from "../../db/repo/documents";
import { AppError, type FieldProblem } from "../../http/errors";
import { MAX_QUERY_CHARS } from "../../retrieval/request";
import type { EvalQuery } from "./evaluate";
import { MAX_EVAL_QUERIES, MAX_EXPECTED_SOURCES, type EvalSetCreateBody } from "./schemas";

const invalid = (problems: FieldProblem[]) =>
  new AppError("invalid_request", `${problems[0]!.field}: ${problems[0]!.message}`, problems.slice(0, 20));

/** The queries of a create body, from `queries` or `jsonl` (exactly one). */
export function queriesOf(body: EvalSetCreateBody): EvalQuery[] {
  if ((body.queries === undefined) === (body.jsonl === undefined))
    throw invalid([{ field: "queries", message: "send exactly one of queries and jsonl" }]);
  const queries = body.queries ?? parseJsonl(body.jsonl!);
  if (queries.length === 0) throw invalid([{ field: "queries", message: "must hold at least one query" }]);
  if (queries.length > MAX_EVAL_QUERIES)
    throw invalid([{ field: "queries", message: `must hold at most ${MAX_EVAL_QUERIES} queries` }]);
  const problems: FieldProblem[] = [];
  const out = queries.map((q, i) => {
    const query = q.query.trim();
    if (query.length === 0) problems.push({ field: `queries.${i}.query`, message: "must not be empty" });
    if (query.length > MAX_QUERY_CHARS)
      problems.push({ field: `queries.${i}.query`, message: `must be at most ${MAX_QUERY_CHARS} characters` });
    return { query, expectedSourceIds: [...new Set(q.expectedSourceIds)] };
  });
  if (problems.length) throw invalid(problems);
  return out;
}

/** One {"query", "sources"} object per non-empty line ("expectedSourceIds" is accepted for "sources"). */
function parseJsonl(text: string): EvalQuery[] {
  const out: EvalQuery[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line) continue;
    const field = `jsonl line ${i + 1}`;
    let x: { query?: unknown; sources?: unknown; expectedSourceIds?: unknown };
    try {
      x = JSON.parse(line);
    } catch {
      throw invalid([{ field, message: "is not JSON" }]);
    }
    const sources = x?.sources ?? x?.expectedSourceIds;
    const ok =
      typeof x?.query === "string" &&
      Array.isArray(sources) &&
      sources.length > 0 &&
      sources.length <= MAX_EXPECTED_SOURCES &&
      sources.every((s) => typeof s === "string" && s.length > 0);
    if (!ok)
      throw invalid([
        { field, message: `must be {"query": "…", "sources": ["…"]} with 1..${MAX_EXPECTED_SOURCES} source ids` },
      ]);
    out.push({ query: x.query as string, expectedSourceIds: sources as string[] });
    if (out.length > MAX_EVAL_QUERIES) break;
  }
  return out;
}

/** Each expected source as the pipeline's source id; 400 naming every one that is not among its sources. */
export async function resolveSources(db: Db, collectionId: string, queries: EvalQuery[]): Promise<EvalQuery[]> {
  const docs = await listDocuments(db, collectionId);
  const ids = new Set(docs.map((d) => d.id));
  const byExternal = new Map(docs.filter((d) => d.externalId !== null).map((d) => [d.externalId!, d.id]));
  const unknown = new Set<string>();
  const problems: FieldProblem[] = [];
  const out = queries.map((q, i) => ({
    query: q.query,
    expectedSourceIds: [
      ...new Set(
        q.expectedSourceIds.map((s) => {
          const id = ids.has(s) ? s : byExternal.get(s);
          if (id) return id;
          if (!unknown.has(s))
            problems.push({ field: `queries.${i}.expectedSourceIds`, message: `unknown source ${s}` });
          unknown.add(s);
          return s;
        }),
      ),
    ],
  }));
  if (unknown.size) {
    const names = [...unknown];
    const shown = names.slice(0, 20).join(", ") + (names.length > 20 ? `, and ${names.length - 20} more` : "");
    throw new AppError("invalid_request", `unknown source ids in this pipeline: ${shown}`, problems.slice(0, 20));
  }
  return out;
}
