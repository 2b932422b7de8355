/**
 * The MCP tools of one pipeline (docs/API.md, MCP): `search`, `read`,
 * `list_sources` and `list_metadata`. Each calls the service the HTTP API calls (search is the query
 * endpoint's QueryService, so the two cannot drift), and a failure comes back as
 * a tool error carrying the sentence the API would send. Descriptions are written
 * for a model to read: what comes back, how scores behave, when to read more.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { Collection } from "../../db/schema";
import type { Store } from "../../db/store";
import type { Logger } from "../../log";
import { MAX_QUERY_CHARS, SEARCH_MODES } from "../../retrieval/request";
import type { AnsweredResult } from "../../retrieval/searcher";
import type { QueryService } from "../query/service";
import { SOURCE_STATUSES } from "../sources/schemas";
import { type CallableTool, callTool } from "./call";
import { pipelineMetadata } from "./metadata-summary";
import { LIST_PAGE_SIZE, listSources } from "./list-sources";
import { READ_MAX_CHARS, type SourceReader } from "./source-text";

/** What the tools of one request need: the key's pipeline, its check and the shared services. */
export interface ToolContext {
  collection: Collection;
  /**
   * What the key or tenant token may see (keys/access.ts); null: everything. A restricted
   * caller searches, reads and lists only the sources it may see, and is not told the
   * pipeline's metadata values (no list_metadata, no summary in search's description).
   */
  access: string | null;
  /** Throws the key's 401 once it no longer holds; asked before each call. */
  recheck: () => Promise<unknown>;
  queries: QueryService;
  /** The key the exchange was admitted with (the query log's caller). */
  keyId: string;
  reader: SourceReader;
  db: Store;
  /** ragd's public address, for each result's `sourcePage`; none: results carry no link. */
  baseUrl?: () => string;
  log: Logger;
}

/**
 * The `filter` argument of `search`: what the query endpoint's filter takes. The
 * metadata filter is any object here and is checked by retrieval/filter.ts, as the
 * endpoint's is, so both refuse the same filters with the same sentence. The keys a
 * pipeline has are named in the tool's description (metadata-summary.ts).
 */
export function filterSchema() {
  return z
    .object({
      sourceIds: z
        .array(z.string().max(64))
        .max(1000)
        .optional()
        .describe("Only chunks of these sources (ids from list_sources or from earlier results)."),
      metadata: z
        .unknown()
        .optional()
        .describe(
          "Conditions on the sources' metadata keys (listed in this tool's description and by list_metadata), " +
            "sourceType and externalId, all of which must hold: a literal means equality, or an object of operators " +
            "$eq $ne $in $nin $gt $gte $lt $lte $exists; $and/$or take arrays of such objects. An array value " +
            'matches when any item matches. Example: {"team": "hr", "year": {"$gte": 2024}, "tags": {"$in": ["policy"]}}.',
        ),
    })
    .strict()
    .describe("Narrows the search before ranking; unknown keys are refused.");
}

/** The `boost` argument of `search`: the query endpoint's (retrieval/boost.ts checks the rest). */
function boostSchema() {
  const key = z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/);
  const weight = z.number().min(0).max(1);
  return z
    .object({
      match: z
        .record(key, z.union([z.string().max(2000), z.number(), z.boolean()]))
        .optional()
        .describe('Metadata the source of a passage should have, e.g. {"team": "hr"} (1..10 keys).'),
      matchWeight: weight.optional().describe("How much the match counts, 0..1 (default 0.3)."),
      recency: z
        .object({
          key: key
            .optional()
            .describe("A metadata key holding an ISO 8601 date (default: when the source was indexed)."),
          halfLifeDays: z.number().min(0.001).max(36500).describe("Age in days at which the boost halves."),
          weight: weight.optional().describe("How much recency counts, 0..1 (default 0.3)."),
        })
        .strict()
        .optional(),
    })
    .strict()
    .describe(
      "Prefer recent sources or sources whose metadata match: scores are scaled down by up to the weights' sum (at most 1).",
    );
}

// The input schemas are built once: building a zod schema takes ~0.5 ms, a large share of
// an MCP call, and each request has its own server (see routes.ts).
const SEARCH_INPUT = z
  .object({
    // The length rule is the query endpoint's (after trimming, in retrieval/request.ts), so the
    // error says the same; this bound only caps what is read, as the endpoint's schema does.
    query: z
      .string()
      .min(1)
      .max(100_000)
      .describe(`The question or the words to look for; at most ${MAX_QUERY_CHARS} characters.`),
    topK: z.number().int().min(1).max(100).optional().describe("How many passages (default: the pipeline's)."),
    mode: z.enum(SEARCH_MODES).optional().describe("hybrid (default), keyword or vector."),
    minScore: z.number().min(0).max(1).optional().describe("Drop passages scoring below this."),
    filter: filterSchema().optional(),
    expand: z
      .object({
        chars: z.number().int().min(1).max(5000).optional(),
        chunks: z.number().int().min(1).max(5).optional(),
      })
      .strict()
      .optional()
      .describe(
        "Add each passage's surrounding text as context {before, after, start, end}: one of {chars: N} characters or {chunks: N} neighbouring passages each side.",
      ),
    highlights: z
      .boolean()
      .optional()
      .describe("Add highlights: [start, end) character ranges in text of the words matching the query."),
    groupBy: z
      .literal("source")
      .optional()
      .describe("One group per source: topK sources, each with its best perSource passages, best source first."),
    facets: z
      .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/))
      .max(10)
      .optional()
      .describe("Metadata keys whose most frequent values to count among the passages the filter keeps."),
    perSource: z
      .number()
      .int()
      .min(1)
      .max(10)
      .optional()
      .describe('With groupBy "source": passages per source (default 1).'),
    boost: boostSchema().optional(),
  })
  .strict();

const READ_INPUT = z
  .object({
    sourceId: z.string().min(1).describe("A source id from search results or list_sources."),
    start: z.number().int().min(0).optional().describe("First character (default 0)."),
    end: z.number().int().min(1).optional().describe(`Character after the last; at most start + ${READ_MAX_CHARS}.`),
  })
  .strict();

const LIST_INPUT = z
  .object({
    page: z.number().int().min(1).optional().describe("Page number, from 1."),
    status: z.enum(SOURCE_STATUSES).optional().describe("Only sources with this status."),
  })
  .strict();

const SEARCH_DESCRIPTION = `Search this pipeline's documents and return the passages (chunks) that best answer a question.
Returns JSON {query, topK, results: [...]}, best first. Each result has: text (the passage), score, sourceId, sourceName,
chunkIndex, start and end (character offsets of the passage in the source's text), sourcePage (where its owner sees the
source in ragd's dashboard), and metadata (sourceType, url or fileName, and any metadata of the source). Cite a passage
by sourceName and sourceId.
Scores are in [0, 1], higher is better, and only comparable within one query; an empty list means nothing matched.
mode: "hybrid" (default) mixes meaning and exact words; "keyword" is best for exact identifiers, error codes and names;
"vector" finds paraphrases. A passage is cut from a longer text: call read with its sourceId and a span around
start..end to see what comes before and after. filter.metadata narrows the search to sources whose metadata match,
before ranking.`;

const READ_DESCRIPTION = `Read part of one source's text by character offsets, e.g. to widen a search hit: pass the hit's
sourceId with start = hit.start - 1000 (not below 0) and end = hit.end + 1000. Returns JSON {sourceId, sourceName, start,
end, length, more, rebuilt, text}: text is characters [start, end) of the source, at most ${READ_MAX_CHARS} per call
(end is cut to that; more = true when text continues after end, so call again with start = the returned end).
Offsets agree with search results. rebuilt = true for file, url and api sources, whose text is rebuilt from the indexed
passages: every word is exact, but whitespace between passages shows as spaces.`;

const METADATA_DESCRIPTION = `List the metadata keys of this pipeline's sources, to write search's filter.metadata. Returns JSON
{keys: [...], totalKeys}; each key has key, types (string, number, boolean, string[]), sources (how many hold it), and
for strings distinctValues and values (the most common, with how many sources hold each), for numbers min and max. At
most 100 keys, most used first, 10 values each. sourceType and externalId can be filtered on too.`;

const NO_INPUT = z.object({}).strict();

const LIST_DESCRIPTION = `List the sources (documents) of this pipeline, oldest first, ${LIST_PAGE_SIZE} a page. Returns JSON
{sources: [...], page, pageSize, total, totalPages}; each source has id, name, type (text, file, url or api), status
(only "ready" sources are searchable), chunkCount, and url, fileName or contentLength. Use the ids with read, or in
search's filter.sourceIds to search only some sources.`;

/**
 * Registers the tools on one server, bound to the key's pipeline: the SDK lists them, and
 * call.ts answers their calls (so refused arguments get ragd's error shape too).
 */
export async function registerTools(server: McpServer, ctx: ToolContext): Promise<void> {
  // The keys differ by pipeline; the text is cached per pipeline, the schema shared.
  const metadata = ctx.access === null ? await pipelineMetadata(ctx.db.reader, ctx.collection.id) : null;
  const readOnly = { readOnlyHint: true, openWorldHint: false };
  const tools = new Map<string, CallableTool>();
  const add = <S extends z.ZodObject>(
    name: string,
    info: { title: string; description: string; inputSchema: S },
    run: (args: z.infer<S>) => Promise<unknown>,
  ) => {
    tools.set(name, { input: info.inputSchema, run });
    const inputSchema: z.ZodObject = info.inputSchema;
    server.registerTool(name, { ...info, inputSchema, annotations: readOnly }, (args) =>
      callTool(tools, ctx, { name, arguments: args }),
    );
  };
  add(
    "search",
    {
      title: "Search the knowledge base",
      description: metadata ? `${SEARCH_DESCRIPTION}\n\n${metadata.description}` : SEARCH_DESCRIPTION,
      inputSchema: SEARCH_INPUT,
    },
    (args) => search(ctx, args),
  );
  add("read", { title: "Read a span of a source", description: READ_DESCRIPTION, inputSchema: READ_INPUT }, (args) =>
    ctx.reader.read(ctx.collection, args.sourceId, args.start, args.end, ctx.access),
  );
  add("list_sources", { title: "List the sources", description: LIST_DESCRIPTION, inputSchema: LIST_INPUT }, (args) =>
    listSources(ctx, args.page ?? 1, args.status),
  );
  if (ctx.access === null)
    add(
      "list_metadata",
      { title: "List the metadata keys", description: METADATA_DESCRIPTION, inputSchema: NO_INPUT },
      async () => (await pipelineMetadata(ctx.db.reader, ctx.collection.id)).summary,
    );
  server.server.setRequestHandler(CallToolRequestSchema, (request) => callTool(tools, ctx, request.params));
}

type SearchArgs = z.infer<typeof SEARCH_INPUT>;

async function search(ctx: ToolContext, args: SearchArgs) {
  const { results, query, topK, facets, facetsTruncated } = await ctx.queries.query(ctx.collection, args, ctx.access, {
    door: "mcp",
    keyId: ctx.keyId,
  });
  const page = sourcePage(ctx);
  return { query, topK, results: results.map((r) => citable(r, page)), facets, facetsTruncated };
}

/**
 * The dashboard page of a result's source, for its owner to open: the chunk on its source's
 * page in a pipeline (docs/API.md, Inspecting a source), the knowledge base's page otherwise.
 */
function sourcePage(ctx: ToolContext): ((sourceId: string, chunkIndex: number) => string) | null {
  if (!ctx.baseUrl) return null;
  const base = `${ctx.baseUrl().replace(/\/+$/, "")}/#`;
  const c = encodeURIComponent(ctx.collection.id);
  if (ctx.collection.kind === "kb") return () => `${base}/kb/${c}`;
  return (sourceId, chunkIndex) => `${base}/pipelines/${c}/sources/${encodeURIComponent(sourceId)}?chunk=${chunkIndex}`;
}

/** A result with what a citation needs at the top level; the rest stays in metadata. */
function citable(r: AnsweredResult, page: ReturnType<typeof sourcePage>) {
  const { sourceId, sourceName, chunkIndex, start, end, ...metadata } = r.metadata;
  const options = { highlights: r.highlights, context: r.context };
  const link = page ? { sourcePage: page(String(sourceId), Number(chunkIndex)) } : {};
  return {
    sourceId,
    sourceName,
    chunkIndex,
    start,
    end,
    score: r.score,
    text: r.content,
    ...link,
    metadata,
    ...options,
  };
}
