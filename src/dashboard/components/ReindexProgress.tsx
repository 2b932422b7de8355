/**
 * A re-index's own progress, where it was started (the Settings tab): sources of the new
 * index finished and chunks embedded, labelled as the re-index. It reads one row of the
 * sources list, whose counts and chunk totals cover the whole pipeline, every 2 s while
 * the pipeline is processing.
 */
import { sources } from "../api/endpoints";
import { t } from "../i18n";
import { formatNumber } from "../lib/format";
import { useLoad, usePoll } from "../lib/hooks";
import { ProgressBar } from "./ProgressBar";

export function ReindexProgress({ pipelineId, processing }: { pipelineId: string; processing: boolean }) {
  const page = useLoad(() => sources.list(pipelineId, { pageSize: 1 }), [pipelineId, processing]);
  usePoll(processing, page.reload, 2000);
  const data = page.data;
  if (!data?.ingest.reindex) return null;
  const c = data.counts;
  const done = c.ready + c.failed;
  const all = done + c.queued + c.processing;
  return (
    <div class="stack-sm" role="status" aria-live="polite" data-testid="reindex-progress">
      <ProgressBar
        label={t("reindex.progress")}
        value={done}
        max={all}
        text={`${t("reindex.sourcesDone", { done: formatNumber(done), total: formatNumber(all) })}${
          data.ingest.chunksTotal > 0
            ? ` · ${t("ingest.chunks", { done: formatNumber(data.ingest.chunksDone), total: formatNumber(data.ingest.chunksTotal) })}`
            : ""
        }`}
      />
    </div>
  );
}
