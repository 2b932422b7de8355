/** Ranked chunks from a query or a knowledge-base search. */
import type { QueryResponse, QueryResult } from "../api/types";
import { t } from "../i18n";
import { formatScore, languageName } from "../lib/format";
import { EmptyState } from "./EmptyState";
import { FacetList } from "./FacetList";
import { ResultText } from "./ResultText";

interface Props {
  response: {
    results: QueryResult[];
    query: string;
    noRelevantResults?: boolean;
    warning?: string;
    queryLanguage?: string;
    facets?: QueryResponse["facets"];
    facetsTruncated?: true;
  };
  ms?: number;
  emptyHint: string;
  /** Where a result's source page is (the playground's pipeline); its chunk number links there. */
  sourceHref?: (sourceId: string, chunkIndex: number) => string;
}

/** Each result: rank, score (with a bar), source name, chunk number and text (highlights, context); then facets. */
export function ResultList({ response, ms, emptyHint, sourceHref }: Props) {
  const { results, query } = response;
  return (
    <section aria-labelledby="results-h" aria-live="polite">
      <div class="section-head">
        <h2 id="results-h">{t("results.title")}</h2>
        <span class="muted small">
          {t("results.count", { count: results.length, query })}
          {ms !== undefined ? ` · ${t("common.ms", { ms })}` : ""}
          {response.queryLanguage
            ? ` · ${t("results.analysedAs", { language: languageName(response.queryLanguage) })}`
            : ""}
        </span>
      </div>
      {response.warning && <p class="note note-warn">{response.warning}</p>}
      {results.length > 0 && response.noRelevantResults && <p class="note note-info">{t("results.notRelevant")}</p>}
      {response.facets && <FacetList facets={response.facets} truncated={response.facetsTruncated} />}
      {results.length === 0 ? (
        <EmptyState title={t("results.none")}>{emptyHint}</EmptyState>
      ) : (
        <ol class="results">
          {results.map((r, i) => (
            <li class="result card" key={`${r.metadata.sourceId}-${r.metadata.chunkIndex}-${i}`}>
              <div class="result-head">
                <span class="rank">#{i + 1}</span>
                <span class="score" title={t("results.scoreTitle")}>
                  <span class="score-bar" aria-hidden="true">
                    <span style={{ width: `${Math.round(r.score * 100)}%` }} />
                  </span>
                  {t("results.score", { score: formatScore(r.score) })}
                </span>
                <span class="result-source break">{String(r.metadata.sourceName ?? "")}</span>
                {sourceHref ? (
                  <a class="small" href={sourceHref(String(r.metadata.sourceId), Number(r.metadata.chunkIndex))}>
                    {t("results.chunk", { n: r.metadata.chunkIndex })}
                  </a>
                ) : (
                  <span class="muted small">{t("results.chunk", { n: r.metadata.chunkIndex })}</span>
                )}
              </div>
              <ResultText r={r} />
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
