/**
 * The query playground: ask the pipeline a question as its signed-in owner (no
 * API key is needed or made), see the ranked chunks, and copy the same call as
 * curl for a program with a key.
 */
import { useState } from "preact/hooks";
import { pipelines, type QueryInput } from "../api/endpoints";
import type { Pipeline, QueryMode, QueryResponse } from "../api/types";
import { CurlCommand } from "../components/CurlCommand";
import { ErrorNote } from "../components/ErrorNote";
import { Field } from "../components/Field";
import { blankFilterRow, FilterBuilder, type FilterRow, filterOf } from "../components/FilterBuilder";
import { ResultList } from "../components/ResultList";
import { Segmented } from "../components/Segmented";
import { ShareSlider } from "../components/ShareSlider";
import { TopKField } from "../components/TopKField";
import { useAction } from "../lib/hooks";
// fusion.ts imports nothing, so only these few lines reach the bundle.
import { defaultHybridAlpha } from "../../retrieval/fusion";

const MODES: [QueryMode, string][] = [
  ["hybrid", "Hybrid"],
  ["vector", "Vector"],
  ["keyword", "Keyword"],
];
const MODE_HINT: Record<QueryMode, string> = {
  hybrid: "Meaning and exact words together. The default, and usually best.",
  vector: "By meaning only: finds paraphrases, may miss rare exact terms.",
  keyword: "By exact words only (full-text search), like a search box.",
};

/** The playground tab of a pipeline. */
export function PlaygroundPanel({ pipeline }: { pipeline: Pipeline }) {
  const [query, setQuery] = useState("");
  const [topK, setTopK] = useState(pipeline.retrievalTopK);
  const [mode, setMode] = useState<QueryMode>("hybrid");
  // null = the pipeline's own blend (its setting, else the embedder's default).
  const [alpha, setAlpha] = useState<number | null>(null);
  const [diversity, setDiversity] = useState(0);
  // What the server uses when the query names no blend (docs/API.md, Scores and the hybrid blend).
  const pipelineAlpha = pipeline.hybridAlpha ?? defaultHybridAlpha(pipeline.embeddingModel);
  const [answer, setAnswer] = useState<{ res: QueryResponse; ms: number } | undefined>(undefined);
  const [filterRows, setFilterRows] = useState<FilterRow[]>([]);
  const filter = filterOf(filterRows);
  const input: QueryInput = { query: query.trim(), topK, mode };
  if ("metadata" in filter && filter.metadata) input.filter = { metadata: filter.metadata };
  if (mode === "hybrid" && alpha !== null) input.hybridAlpha = alpha;
  if (diversity > 0) input.diversity = diversity;
  const search = useAction(async () => {
    const t0 = performance.now();
    const res = await pipelines.query(pipeline.id, input);
    setAnswer({ res, ms: Math.round(performance.now() - t0) });
  });
  const submit = (e: Event) => {
    e.preventDefault();
    if (input.query) void search.run();
  };

  return (
    <div class="stack">
      <section class="card" aria-labelledby="pg-h">
        <h2 id="pg-h">Ask</h2>
        <form class="form" onSubmit={submit}>
          <Field label="Query" hint="Ctrl+Enter searches.">
            {(ids) => (
              <textarea
                {...ids}
                rows={2}
                value={query}
                placeholder="What would your users ask?"
                onInput={(e) => setQuery(e.currentTarget.value)}
                onKeyDown={(e) => e.key === "Enter" && (e.ctrlKey || e.metaKey) && submit(e)}
              />
            )}
          </Field>
          <div class="grid-2">
            <TopKField label="Results (top-K)" hint="1 to 100." value={topK} onChange={setTopK} />
            <div class="field">
              <span class="label" aria-hidden="true">
                Mode
              </span>
              <Segmented legend="Search mode" value={mode} options={MODES} onChange={setMode} />
              <p class="hint">{MODE_HINT[mode]}</p>
            </div>
          </div>
          {filterRows.length > 0 ? (
            <FilterBuilder rows={filterRows} onChange={setFilterRows} />
          ) : (
            <div>
              <button type="button" class="btn btn-small" onClick={() => setFilterRows([blankFilterRow()])}>
                Filter on metadata
              </button>
            </div>
          )}
          {"error" in filter && (
            <p class="field-error" role="alert">
              {filter.error}
            </p>
          )}
          {mode === "hybrid" && (
            <Field
              label={`Blend (alpha): ${(alpha ?? pipelineAlpha).toFixed(2)}${alpha === null ? " (pipeline's)" : ""}`}
              hint="0 = keyword only, 1 = vector only. Untouched, the pipeline's setting applies (else its embedder's default)."
            >
              {(ids) => (
                <div class="field-control field-control-wide">
                  <ShareSlider {...ids} value={alpha ?? pipelineAlpha} onChange={setAlpha} />
                  {alpha !== null && (
                    <button type="button" class="btn btn-small" onClick={() => setAlpha(null)}>
                      Reset
                    </button>
                  )}
                </div>
              )}
            </Field>
          )}
          <Field
            label={`Diversity: ${diversity === 0 ? "off" : diversity.toFixed(2)}`}
            hint="Above 0, results unlike those above them move up, so overlapping chunks of one page do not fill the list."
          >
            {(ids) => <ShareSlider {...ids} value={diversity} onChange={setDiversity} />}
          </Field>
          <ErrorNote error={search.error} context="The query failed" />
          <div class="form-actions">
            <button type="submit" class="btn btn-primary" disabled={!input.query || search.busy || "error" in filter}>
              {search.busy ? "Searching…" : "Search"}
            </button>
            <span class="muted small">Searches as you, signed in: no API key is used or created.</span>
          </div>
        </form>
      </section>
      {answer && <ResultList response={answer.res} ms={answer.ms} emptyHint={emptyHint(pipeline)} />}
      <CurlCommand input={input} />
    </div>
  );
}

/** What to do when nothing came back, depending on whether anything is indexed. */
function emptyHint(p: Pipeline): string {
  if (p.chunkCount === 0)
    return "This pipeline has nothing indexed yet. Add a source on the Sources tab, wait until it is ready, and ask again.";
  return "Nothing matched. Try other words, or hybrid mode.";
}
