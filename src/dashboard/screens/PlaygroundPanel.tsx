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
import { BLANK_OPTIONS, optionsOf, QueryOptionsFields } from "../components/QueryOptionsFields";
import { ResultList } from "../components/ResultList";
import { Segmented } from "../components/Segmented";
import { ShareSlider } from "../components/ShareSlider";
import { TopKField } from "../components/TopKField";
import { type Key, t } from "../i18n";
import { formatFixed } from "../lib/format";
import { useAction } from "../lib/hooks";
// fusion.ts imports nothing, so only these few lines reach the bundle.
import { defaultHybridAlpha } from "../../vectors/fusion";

const MODES: [QueryMode, Key][] = [
  ["hybrid", "mode.hybrid"],
  ["vector", "mode.vector"],
  ["keyword", "mode.keyword"],
];
const MODE_HINT: Record<QueryMode, Key> = {
  hybrid: "mode.hybridHint",
  vector: "mode.vectorHint",
  keyword: "mode.keywordHint",
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
  const [options, setOptions] = useState(BLANK_OPTIONS);
  const input: QueryInput = { query: query.trim(), topK, mode, ...optionsOf(options) };
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
        <h2 id="pg-h">{t("playground.ask")}</h2>
        <form class="form" onSubmit={submit}>
          <Field label={t("common.query")} hint={t("playground.ctrlEnter")}>
            {(ids) => (
              <textarea
                {...ids}
                rows={2}
                value={query}
                placeholder={t("playground.placeholder")}
                onInput={(e) => setQuery(e.currentTarget.value)}
                onKeyDown={(e) => e.key === "Enter" && (e.ctrlKey || e.metaKey) && submit(e)}
              />
            )}
          </Field>
          <div class="grid-2">
            <TopKField
              label={t("playground.topK")}
              hint={t("playground.topKHint", { min: 1, max: 100 })}
              value={topK}
              onChange={setTopK}
            />
            <div class="field">
              <span class="label" aria-hidden="true">
                {t("eval.mode")}
              </span>
              <Segmented
                legend={t("playground.mode")}
                value={mode}
                options={MODES.map(([m, key]) => [m, t(key)])}
                onChange={setMode}
              />
              <p class="hint">{t(MODE_HINT[mode])}</p>
            </div>
          </div>
          {filterRows.length > 0 ? (
            <FilterBuilder rows={filterRows} onChange={setFilterRows} />
          ) : (
            <div>
              <button type="button" class="btn btn-small" onClick={() => setFilterRows([blankFilterRow()])}>
                {t("playground.filter")}
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
              label={t(alpha === null ? "playground.blendPipeline" : "playground.blend", {
                alpha: formatFixed(alpha ?? pipelineAlpha, 2),
              })}
              hint={t("playground.blendHint")}
            >
              {(ids) => (
                <div class="field-control field-control-wide">
                  <ShareSlider {...ids} value={alpha ?? pipelineAlpha} onChange={setAlpha} />
                  {alpha !== null && (
                    <button type="button" class="btn btn-small" onClick={() => setAlpha(null)}>
                      {t("playground.reset")}
                    </button>
                  )}
                </div>
              )}
            </Field>
          )}
          <Field
            label={t("playground.diversity", {
              value: diversity === 0 ? t("playground.off") : formatFixed(diversity, 2),
            })}
            hint={t("playground.diversityHint")}
          >
            {(ids) => <ShareSlider {...ids} value={diversity} onChange={setDiversity} />}
          </Field>
          <QueryOptionsFields value={options} onChange={setOptions} />
          <ErrorNote error={search.error} context={t("playground.failed")} />
          <div class="form-actions">
            <button type="submit" class="btn btn-primary" disabled={!input.query || search.busy || "error" in filter}>
              {search.busy ? t("common.searching") : t("common.search")}
            </button>
            <span class="muted small">{t("playground.asYou")}</span>
          </div>
        </form>
      </section>
      {answer && (
        <ResultList
          response={answer.res}
          ms={answer.ms}
          emptyHint={emptyHint(pipeline)}
          sourceHref={(sourceId, chunk) =>
            `#/pipelines/${encodeURIComponent(pipeline.id)}/sources/${encodeURIComponent(sourceId)}?chunk=${chunk}`
          }
        />
      )}
      <CurlCommand input={input} />
    </div>
  );
}

/** What to do when nothing came back, depending on whether anything is indexed. */
function emptyHint(p: Pipeline): string {
  return p.chunkCount === 0 ? t("playground.emptyIndex") : t("playground.nothing");
}
