/** A source's chunks with their offsets, page by page; `focus` opens on a chunk's page and marks it. */
import { useEffect, useState } from "preact/hooks";
import { sources } from "../api/endpoints";
import { t } from "../i18n";
import { formatNumber } from "../lib/format";
import { useLoad } from "../lib/hooks";
import { ErrorNote } from "./ErrorNote";

const PAGE_SIZE = 20;

export function SourceChunks(p: {
  pipelineId: string;
  sourceId: string;
  total: number;
  focus?: number;
  revision: string;
}) {
  const [page, setPage] = useState(p.focus !== undefined ? Math.floor(p.focus / PAGE_SIZE) + 1 : 1);
  const chunks = useLoad(
    () => sources.chunks(p.pipelineId, p.sourceId, page, PAGE_SIZE),
    [p.pipelineId, p.sourceId, page, p.revision],
  );
  const pages = Math.max(1, Math.ceil(p.total / PAGE_SIZE));
  useEffect(() => {
    if (p.focus !== undefined) document.getElementById(`chunk-${p.focus}`)?.scrollIntoView({ block: "center" });
  }, [chunks.data, p.focus]);
  return (
    <section aria-labelledby="source-chunks-h">
      <h2 id="source-chunks-h">{t("source.chunks")}</h2>
      <ErrorNote error={chunks.error} context={t("source.chunksFailed")} />
      <ol class="rows" aria-label={t("source.chunks")}>
        {chunks.data?.chunks.map((c) => (
          <li
            key={c.chunkIndex}
            id={`chunk-${c.chunkIndex}`}
            class={`row${c.chunkIndex === p.focus ? " row-focus" : ""}`}
            aria-current={c.chunkIndex === p.focus ? "true" : undefined}
          >
            <div class="row-main">
              <div class="small muted">
                {t("source.chunkAt", {
                  index: c.chunkIndex,
                  start: formatNumber(c.start),
                  end: formatNumber(c.end),
                })}
              </div>
              <p class="break chunk-text">{c.text}</p>
            </div>
          </li>
        ))}
      </ol>
      {pages > 1 && (
        <nav class="pagination" aria-label={t("source.chunkPages")}>
          <button type="button" class="btn btn-small" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            {t("pages.previous")}
          </button>
          <span class="muted">{t("pages.where", { page, pages, total: p.total })}</span>
          <button type="button" class="btn btn-small" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            {t("pages.next")}
          </button>
        </nav>
      )}
    </section>
  );
}
