/** One data source: what it is, its status and progress, its error and actions. */
import { useState } from "preact/hooks";
import { sources } from "../api/endpoints";
import type { Source } from "../api/types";
import { formatBytes, plural } from "../lib/format";
import { TimeAgo } from "./TimeAgo";
import { useAction } from "../lib/hooks";
import { ErrorNote } from "./ErrorNote";
import { MetadataEditor } from "./MetadataEditor";
import { ProgressBar } from "./ProgressBar";
import { RefreshEditor } from "./RefreshEditor";
import { SourceFetchInfo } from "./SourceFetchInfo";
import { StatusBadge } from "./StatusBadge";

const TYPE_LABEL: Record<Source["type"], string> = { text: "Text", file: "File", url: "URL", api: "API" };

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
  // A crawled page is fetched again with its crawl source.
  const canRefetch = (s.type === "url" || s.type === "api") && !s.crawlSourceId;
  const progress = s.progress;
  const [editing, setEditing] = useState(false);
  const [scheduling, setScheduling] = useState(false);
  const labels = Object.entries(s.metadata ?? {});
  return (
    <li class="row">
      <div class="row-main">
        <div class="row-title">
          <span class="type-tag">{TYPE_LABEL[s.type] ?? s.type}</span>
          <strong class="break">{s.name}</strong>
          <StatusBadge status={s.status} />
        </div>
        <div class="muted break small">{origin(s)}</div>
        {s.ocr && (
          <div class="small muted" title="Text read from pictures by optical character recognition">
            OCR'd: {plural(s.ocr.pages, "page")} with {s.ocr.languages.join(", ")}
          </div>
        )}
        {s.externalId && (
          <div class="small muted break">
            External id: <code>{s.externalId}</code>
          </div>
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
          <ul class="chips small" aria-label={`Metadata of ${s.name}`}>
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
            label={`Progress of ${s.name}`}
            value={progress?.done ?? 0}
            max={progress?.total ?? 0}
            text={
              progress && progress.total > 0
                ? `${progress.done} of ${plural(progress.total, progress.unit === "pages" ? "page" : "chunk")}${progress.unit === "pages" ? " read by OCR" : ""}`
                : "Reading…"
            }
          />
        )}
        {s.status === "queued" && <p class="small muted">Waiting for a worker…</p>}
        {s.status === "awaiting_upload" && (
          <p class="small muted">
            Waiting for the file. If no upload is running, delete this source and upload it again.
          </p>
        )}
        {s.status === "failed" && s.error && (
          <p class="source-error small" role="note">
            <strong>Why it failed:</strong> {s.error}
          </p>
        )}
        <ErrorNote error={retry.error} context="Retry failed" />
        <ErrorNote error={refetch.error} context="Could not fetch it again" />
      </div>
      <div class="row-side">
        <span class="small muted">
          {s.status === "ready" ? plural(s.chunkCount, "chunk") : ""}
          {s.status === "ready" && " · "}
          <TimeAgo at={s.updatedAt} />
        </span>
        <div class="row-actions">
          {s.status === "failed" && (
            <button type="button" class="btn btn-small" onClick={() => void retry.run()} disabled={retry.busy}>
              {retry.busy ? "Retrying…" : "Retry"}
            </button>
          )}
          {canRefetch && s.status === "ready" && (
            <button
              type="button"
              class="btn btn-small"
              onClick={() => void refetch.run()}
              disabled={refetch.busy}
              aria-label={`Fetch ${s.name} again now`}
            >
              {refetch.busy ? "Fetching…" : "Re-fetch now"}
            </button>
          )}
          {canRefetch && !scheduling && (
            <button
              type="button"
              class="btn btn-small"
              onClick={() => setScheduling(true)}
              aria-label={`Schedule of ${s.name}`}
            >
              Schedule
            </button>
          )}
          {!editing && (
            <button type="button" class="btn btn-small" onClick={() => setEditing(true)}>
              Metadata
            </button>
          )}
          <button
            type="button"
            class="btn btn-small btn-ghost-danger"
            onClick={onDelete}
            aria-label={`Delete ${s.name}`}
          >
            Delete
          </button>
        </div>
      </div>
    </li>
  );
}
