/** A source's newest events: each status change, refresh and failure, with when (docs/API.md, Events). */
import { sources } from "../api/endpoints";
import { t } from "../i18n";
import { useLoad } from "../lib/hooks";
import { ErrorNote } from "./ErrorNote";
import { TimeAgo } from "./TimeAgo";

export function SourceHistory({
  pipelineId,
  sourceId,
  revision,
}: {
  pipelineId: string;
  sourceId: string;
  revision: string;
}) {
  const history = useLoad(() => sources.history(pipelineId, sourceId), [pipelineId, sourceId, revision]);
  return (
    <section aria-labelledby="source-history-h">
      <h2 id="source-history-h">{t("source.history")}</h2>
      <ErrorNote error={history.error} context={t("source.historyFailed")} />
      <ul class="rows" aria-label={t("source.history")}>
        {history.data?.events.map((e) => (
          <li key={e.id} class="row">
            <div class="row-main">
              <div>
                <code>{e.type}</code> <TimeAgo at={e.time} />
              </div>
              {e.error && <p class="source-error small break">{e.error}</p>}
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
