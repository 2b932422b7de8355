/** The text ragd extracted from a source, a span at a time (docs/API.md, Inspecting a source). */
import { useEffect, useState } from "preact/hooks";
import type { ApiError } from "../api/client";
import { sources, type TextSpan } from "../api/endpoints";
import { t } from "../i18n";
import { formatNumber } from "../lib/format";
import { ErrorNote } from "./ErrorNote";

/** Loads the first span, and the next on "Show more"; `revision` changes when the source is indexed again. */
export function SourceText({
  pipelineId,
  sourceId,
  revision,
}: {
  pipelineId: string;
  sourceId: string;
  revision: string;
}) {
  const [spans, setSpans] = useState<TextSpan[]>([]);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const load = (start: number, keep: TextSpan[]) =>
    sources.text(pipelineId, sourceId, start).then(
      (span) => setSpans([...keep, span]),
      (e: ApiError) => setError(e),
    );
  useEffect(() => {
    setSpans([]);
    setError(undefined);
    void load(0, []);
  }, [pipelineId, sourceId, revision]);
  const last = spans.at(-1);
  return (
    <section class="card" aria-labelledby="source-text-h">
      <h2 id="source-text-h">{t("source.text")}</h2>
      {last && (
        <p class="small muted">
          {t("source.textLength", { count: formatNumber(last.length) })}
          {last.rebuilt && ` ${t("source.rebuilt")}`}
        </p>
      )}
      {/* An error here is only "no text yet" for a source still queued, or a real failure. */}
      <ErrorNote error={error} context={t("source.textFailed")} />
      {spans.length > 0 && (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
        <pre class="code source-text" tabIndex={0} data-testid="source-text">
          {spans.map((s) => s.text).join("")}
        </pre>
      )}
      {last?.more && (
        <button type="button" class="btn btn-small" onClick={() => void load(last.end, spans)}>
          {t("source.more")}
        </button>
      )}
    </section>
  );
}
