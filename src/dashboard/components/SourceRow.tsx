/** One data source: what it is, its status and progress, its error and actions. */
import { useState } from "preact/hooks";
import { sources } from "../api/endpoints";
import type { Source } from "../api/types";
import { type Key, rich, t } from "../i18n";
import { formatBytes, formatNumber } from "../lib/format";
import { TimeAgo } from "./TimeAgo";
import { useAction } from "../lib/hooks";
import { ErrorNote } from "./ErrorNote";
import { MetadataEditor } from "./MetadataEditor";
import { ProgressBar } from "./ProgressBar";
import { RefreshEditor } from "./RefreshEditor";
import { SourceFetchInfo } from "./SourceFetchInfo";
import { StatusBadge } from "./StatusBadge";

const TYPE_LABEL: Record<Source["type"], Key> = {
  text: "sourceType.text",
  file: "sourceType.file",
  url: "sourceType.url",
  api: "sourceType.api",
  folder: "sourceType.folder",
  git: "sourceType.git",
  s3: "sourceType.s3",
};

/** "3 of 10 chunks", "2 of 5 pages read by OCR", or "Reading…" before the total is known. */
function progressText(p: Source["progress"]): string {
  if (!p || p.total <= 0) return t("sourceRow.reading");
  if (p.unit === "pages") return t("sourceRow.pagesRead", { done: formatNumber(p.done), count: p.total });
  return t("sourceRow.chunksDone", { done: formatNumber(p.done), count: p.total });
}

interface Props {
  pipelineId: string;
  source: Source;
  onChanged: () => void;
  onDelete: () => void;
}

/** What the source points at, in a few words. */
function origin(s: Source): string {
  if (s.type === "file") return `${s.fileName ?? ""}${s.fileSize !== undefined ? ` · ${formatBytes(s.fileSize)}` : ""}`;
  if (s.type === "url" || s.type === "api") return s.url ?? "";
  if (s.type === "folder") return s.folder?.path ?? "";
  if (s.type === "git") return `${s.url ?? ""}${s.git?.branch ? ` · ${s.git.branch}` : ""}`;
  if (s.type === "s3") return s.s3 ? `${s.s3.endpoint}/${s.s3.bucket}/${s.s3.prefix}` : "";
  const text = s.content ?? "";
  return `${text.slice(0, 90)}${text.length > 90 ? "…" : ""}`;
}

/** A list item; failed sources show their error and a Retry button. */
export function SourceRow({ pipelineId, source: s, onChanged, onDelete }: Props) {
  const retry = useAction(async () => {
    await sources.retry(pipelineId, s.id);
    onChanged();
  });
  const refetch = useAction(async () => {
    await sources.refetch(pipelineId, s.id);
    onChanged();
  });
  // A crawled page is fetched again with its crawl source; a folder, Git or bucket source syncs.
  const canRefetch = ["url", "api", "folder", "git", "s3"].includes(s.type) && !s.crawlSourceId;
  const progress = s.progress;
  const [editing, setEditing] = useState(false);
  const [scheduling, setScheduling] = useState(false);
  const labels = Object.entries(s.metadata ?? {});
  return (
    <li class="row">
      <div class="row-main">
        <div class="row-title">
          <span class="type-tag">{TYPE_LABEL[s.type] ? t(TYPE_LABEL[s.type]) : s.type}</span>
          <strong class="break">
            <a href={`#/pipelines/${encodeURIComponent(pipelineId)}/sources/${encodeURIComponent(s.id)}`}>{s.name}</a>
          </strong>
          <StatusBadge status={s.status} />
        </div>
        <div class="muted break small">{origin(s)}</div>
        {s.ocr && (
          <div class="small muted" title={t("sourceRow.ocrTitle")}>
            {t("sourceRow.ocr", {
              pages: t("count.pages", { count: s.ocr.pages }),
              languages: s.ocr.languages.join(", "),
            })}
          </div>
        )}
        {s.externalId && (
          <div class="small muted break">{rich("sourceRow.externalId", { id: <code>{s.externalId}</code> })}</div>
        )}
        <SourceFetchInfo source={s} />
        {scheduling && (
          <RefreshEditor
            pipelineId={pipelineId}
            source={s}
            onCancel={() => setScheduling(false)}
            onSaved={() => {
              setScheduling(false);
              onChanged();
            }}
          />
        )}
        {labels.length > 0 && !editing && (
          <ul class="chips small" aria-label={t("meta.of", { name: s.name })}>
            {labels.map(([k, v]) => (
              <li key={k}>
                <code>
                  {k}: {Array.isArray(v) ? v.join(", ") : String(v)}
                </code>
              </li>
            ))}
          </ul>
        )}
        {editing && (
          <MetadataEditor
            pipelineId={pipelineId}
            source={s}
            onCancel={() => setEditing(false)}
            onSaved={() => {
              setEditing(false);
              onChanged();
            }}
          />
        )}
        {s.status === "processing" && (
          <ProgressBar
            label={t("kbDocs.progressOf", { name: s.name })}
            value={progress?.done ?? 0}
            max={progress?.total ?? 0}
            text={progressText(progress)}
          />
        )}
        {s.status === "queued" && <p class="small muted">{t("sourceRow.waitingWorker")}</p>}
        {s.status === "awaiting_upload" && <p class="small muted">{t("sourceRow.waitingFile")}</p>}
        {s.status === "failed" && s.error && (
          <p class="source-error small" role="note">
            <strong>{t("common.whyFailed")}</strong> {s.error}
          </p>
        )}
        <ErrorNote error={retry.error} context={t("sourceRow.retryFailed")} />
        <ErrorNote error={refetch.error} context={t("sourceRow.refetchFailed")} />
      </div>
      <div class="row-side">
        <span class="small muted">
          {s.status === "ready" ? t("count.chunks", { count: s.chunkCount }) : ""}
          {s.status === "ready" && " · "}
          <TimeAgo at={s.updatedAt} />
        </span>
        <div class="row-actions">
          {s.status === "failed" && (
            <button type="button" class="btn btn-small" onClick={() => void retry.run()} disabled={retry.busy}>
              {retry.busy ? t("sourceRow.retrying") : t("sourceRow.retry")}
            </button>
          )}
          {canRefetch && s.status === "ready" && (
            <button
              type="button"
              class="btn btn-small"
              onClick={() => void refetch.run()}
              disabled={refetch.busy}
              aria-label={t("sourceRow.refetchWhat", { name: s.name })}
            >
              {refetch.busy ? t("sourceRow.fetching") : t("sourceRow.refetch")}
            </button>
          )}
          {canRefetch && !scheduling && (
            <button
              type="button"
              class="btn btn-small"
              onClick={() => setScheduling(true)}
              aria-label={t("sourceRow.scheduleOf", { name: s.name })}
            >
              {t("sourceRow.schedule")}
            </button>
          )}
          {!editing && (
            <button type="button" class="btn btn-small" onClick={() => setEditing(true)}>
              {t("sourceRow.metadata")}
            </button>
          )}
          <button
            type="button"
            class="btn btn-small btn-ghost-danger"
            onClick={onDelete}
            aria-label={t("common.deleteWhat", { name: s.name })}
          >
            {t("common.delete")}
          </button>
        </div>
      </div>
    </li>
  );
}
