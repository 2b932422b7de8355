/**
 * The Settings tab: edit the pipeline, re-index it, set its query log, delete it. Saving never
 * re-indexes by itself (docs/API.md, PATCH of a pipeline: an update does not touch existing data), so the
 * form says so under its Save button and offers "Re-index now" right there.
 */
import { useState } from "preact/hooks";
import { pipelines } from "../api/endpoints";
import type { PipelineConfig, PipelineDetail } from "../api/types";
import { DeletePipeline } from "../components/DeletePipeline";
import { configOf, PipelineForm } from "../components/PipelineForm";
import { QueryLogCard } from "../components/QueryLogCard";
import { ReindexNote } from "../components/ReindexNote";
import { t } from "../i18n";
import { useAction } from "../lib/hooks";
import { useApp } from "../lib/session";

// OCR languages change the text read from pictures: that too needs a re-index to apply.
const INDEX_FIELDS: (keyof PipelineConfig)[] = [
  "chunkingStrategy",
  "chunkSize",
  "chunkOverlap",
  "embeddingModel",
  "ocrLanguages",
];

/** The fields of `next` that differ from the pipeline. */
function changes(p: PipelineDetail, next: PipelineConfig): Partial<PipelineConfig> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(next) as (keyof PipelineConfig)[]) if (next[k] !== p[k]) out[k] = next[k];
  return out as Partial<PipelineConfig>;
}

/** Settings with the re-index notice, then the danger zone. */
export function SettingsPanel({ pipeline, onSaved }: { pipeline: PipelineDetail; onSaved: () => void }) {
  const { notify } = useApp();
  const [stale, setStale] = useState(false);
  const save = useAction(async (next: PipelineConfig) => {
    const patch = changes(pipeline, next);
    if (Object.keys(patch).length === 0) return notify(t("settings.nothing"));
    await pipelines.update(pipeline.id, patch);
    if (INDEX_FIELDS.some((k) => k in patch) && pipeline.sourceCount > 0) setStale(true);
    notify(t("settings.saved"));
    onSaved();
  });

  return (
    <div class="stack">
      <section class="card" aria-labelledby="settings-h">
        <h2 id="settings-h" class="sr-only">
          {t("tabs.settings")}
        </h2>
        <PipelineForm
          initial={configOf(pipeline)}
          submitLabel={t("settings.save")}
          busy={save.busy}
          error={save.error}
          onSubmit={(c) => void save.run(c)}
          afterActions={
            <ReindexNote pipeline={pipeline} stale={stale} onStarted={() => (setStale(false), onSaved())} />
          }
        />
      </section>
      <QueryLogCard pipeline={pipeline} onSaved={onSaved} />
      <DeletePipeline pipeline={pipeline} />
    </div>
  );
}
