/**
 * The Sources tab: add text, a URL, an API address or a file, and watch each
 * source move through queued → processing → ready (or failed, with its error and
 * a Retry). The list follows the pipeline's event stream; only when the stream is
 * down does it poll, slowly, while anything is still in flight.
 */
import { useState } from "preact/hooks";
import { sources } from "../api/endpoints";
import type { PipelineDetail, Source } from "../api/types";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { EmptyState, Loading } from "../components/EmptyState";
import { ErrorNote } from "../components/ErrorNote";
import { SourceAddForm } from "../components/SourceAddForm";
import { SourceRow } from "../components/SourceRow";
import { isBusy } from "../components/StatusBadge";
import { plural } from "../lib/format";
import { useCoalesced, usePipelineEvents } from "../lib/events";
import { useAction, useLoad, usePoll } from "../lib/hooks";
import { useApp } from "../lib/session";

interface Props {
  pipeline: PipelineDetail;
  /** Tells the page to refresh its header (status, counts). */
  onChange: () => void;
}

/** Sources of one pipeline, with the add form above the list. */
export function SourcesPanel({ pipeline, onChange }: Props) {
  const { notify } = useApp();
  const list = useLoad(() => sources.list(pipeline.id), [pipeline.id]);
  const [doomed, setDoomed] = useState<Source | undefined>(undefined);
  const busy = list.data?.some((s) => isBusy(s.status)) ?? false;
  const refresh = async () => {
    await list.reload();
    onChange();
  };
  const refreshSoon = useCoalesced(refresh, 500);
  const live = usePipelineEvents(pipeline.id, refreshSoon);
  usePoll(busy && !live, refresh, 5000);
  const remove = useAction(async (s: Source) => {
    await sources.remove(pipeline.id, s.id);
    setDoomed(undefined);
    notify(`Source “${s.name}” deleted.`);
    await refresh();
  });

  const items = list.data ?? [];

  return (
    <div class="stack">
      <section class="card" aria-labelledby="add-src-h">
        <h2 id="add-src-h">Add a source</h2>
        <SourceAddForm pipelineId={pipeline.id} onAdded={refresh} />
      </section>
      <section aria-labelledby="src-h">
        <div class="section-head">
          <h2 id="src-h">Sources</h2>
          {list.data && (
            <span class="muted" aria-live="polite">
              {plural(items.length, "source")}
              {busy && (live ? " · live" : " · updating on its own while ragd works")}
            </span>
          )}
        </div>
        <ErrorNote error={list.error} context="Could not load the sources" />
        {!list.data && list.loading && <Loading />}
        {list.data && items.length === 0 && (
          <EmptyState title="No sources yet">
            Add some text, a web page, an API address or a file above. ragd chunks and embeds it in the background; then
            try it on the Playground tab.
          </EmptyState>
        )}
        {items.length > 0 && (
          <ul class="rows" aria-label="Sources">
            {items.map((s) => (
              <SourceRow
                key={s.id}
                pipelineId={pipeline.id}
                source={s}
                onChanged={refresh}
                onDelete={() => setDoomed(s)}
              />
            ))}
          </ul>
        )}
      </section>
      {doomed && (
        <ConfirmDialog
          title={`Delete “${doomed.name}”?`}
          confirmLabel="Delete source"
          busy={remove.busy}
          error={remove.error}
          onConfirm={() => void remove.run(doomed)}
          onCancel={() => (setDoomed(undefined), remove.setError(undefined))}
        >
          <p>
            This removes the source and its {plural(doomed.chunkCount, "chunk")} from the index
            {doomed.type === "file" ? ", and the stored file" : ""}. Queries stop finding it at once. This cannot be
            undone.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}
