/**
 * The pipeline settings form, shared by "New pipeline" and the Settings tab.
 * It checks what it can before sending (sizes, overlap below size) and shows the
 * API's own message on the field it names.
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { fieldError, type ApiError } from "../api/client";
import type { ChunkingStrategy, PipelineConfig } from "../api/types";
import { ErrorNote } from "./ErrorNote";
import { Field } from "./Field";
import { ModelPicker } from "./ModelPicker";
import { NumberField } from "./NumberField";
import { checkLanguages, OcrLanguagesField } from "./OcrLanguagesField";

export const STRATEGIES: [ChunkingStrategy, string, string][] = [
  ["recursive", "Recursive (default)", "Splits at paragraphs, then sentences, then words, to stay near the size."],
  ["fixed", "Fixed", "Equal windows of the chosen size, wherever they fall."],
  ["sentence", "Sentence", "Whole sentences, packed up to the size."],
  ["paragraph", "Paragraph", "Whole paragraphs, packed up to the size."],
  ["markdown", "Markdown", "Follows headings and sections; for .md files and notes."],
  ["token", "Token", "Counts model tokens instead of characters; sizes below are in tokens."],
];

export const DEFAULT_CONFIG: PipelineConfig = {
  name: "",
  description: "",
  chunkingStrategy: "recursive",
  chunkSize: 1000,
  chunkOverlap: 200,
  embeddingModel: "", // the picker fills in the server's default
  vectorProvider: "lancedb",
  retrievalTopK: 5,
  hybridAlpha: null,
  rerankModel: null,
  ocrLanguages: null,
};

/** The editable fields of a pipeline: the keys of the defaults, which name every one of them. */
const CONFIG_KEYS = Object.keys(DEFAULT_CONFIG) as (keyof PipelineConfig)[];

/** The editable fields of a pipeline, without its id, counts and dates. */
export function configOf(p: PipelineConfig): PipelineConfig {
  return Object.fromEntries(CONFIG_KEYS.map((k) => [k, p[k]])) as PipelineConfig;
}

/** Problems the browser can see before asking the server, by field. */
export function checkConfig(c: PipelineConfig): Partial<Record<keyof PipelineConfig, string>> {
  const out: Partial<Record<keyof PipelineConfig, string>> = {};
  const unit = c.chunkingStrategy === "token" ? "tokens" : "characters";
  if (!c.name.trim()) out.name = "Give the pipeline a name.";
  if (!Number.isInteger(c.chunkSize) || c.chunkSize < 50 || c.chunkSize > 20000)
    out.chunkSize = `Use a whole number from 50 to 20,000 ${unit}.`;
  if (!Number.isInteger(c.chunkOverlap) || c.chunkOverlap < 0) out.chunkOverlap = "Use a whole number, 0 or more.";
  else if (c.chunkOverlap >= c.chunkSize)
    out.chunkOverlap = `Must be less than the chunk size (${c.chunkSize} ${unit}).`;
  if (!Number.isInteger(c.retrievalTopK) || c.retrievalTopK < 1 || c.retrievalTopK > 100)
    out.retrievalTopK = "Use a whole number from 1 to 100.";
  const a = c.hybridAlpha;
  if (a !== null && (Number.isNaN(a) || a < 0 || a > 1)) out.hybridAlpha = "Use a number from 0 to 1, or leave empty.";
  if (!c.embeddingModel.trim()) out.embeddingModel = "Choose or type a model.";
  const languages = checkLanguages(c.ocrLanguages);
  if (languages) out.ocrLanguages = languages;
  return out;
}

interface Props {
  initial: PipelineConfig;
  submitLabel: string;
  busy: boolean;
  error: ApiError | undefined;
  onSubmit: (c: PipelineConfig) => void;
  /** Shown above the submit button (e.g. the tier-limit explanation). */
  footer?: ComponentChildren;
  /** Shown below the submit button (e.g. the re-index notice). */
  afterActions?: ComponentChildren;
}

/** The fields of a pipeline, grouped: about, chunking, embedding and retrieval. */
export function PipelineForm({ initial, submitLabel, busy, error, onSubmit, footer, afterActions }: Props) {
  const [c, setC] = useState<PipelineConfig>(initial);
  const [checked, setChecked] = useState(false);
  const set = <K extends keyof PipelineConfig>(k: K, v: PipelineConfig[K]) => setC((old) => ({ ...old, [k]: v }));
  // An emptied whole-number box is NaN, which the checks below report as not a whole number.
  const num = (k: "chunkSize" | "chunkOverlap" | "retrievalTopK") => (v: number | null) => set(k, v ?? Number.NaN);
  const local = checked ? checkConfig(c) : {};
  const err = (k: keyof PipelineConfig) => local[k] ?? fieldError(error, k);
  const unit = c.chunkingStrategy === "token" ? "tokens" : "characters";

  const submit = (e: Event) => {
    e.preventDefault();
    setChecked(true);
    if (Object.keys(checkConfig(c)).length === 0) onSubmit({ ...c, name: c.name.trim() });
  };

  return (
    <form class="form" onSubmit={submit} noValidate>
      <fieldset>
        <legend>About</legend>
        <Field label="Name" error={err("name")}>
          {(ids) => (
            <input {...ids} value={c.name} maxLength={200} onInput={(e) => set("name", e.currentTarget.value)} />
          )}
        </Field>
        <Field label="Description" hint="Optional. What this pipeline holds, for you and your team.">
          {(ids) => (
            <textarea
              {...ids}
              rows={2}
              value={c.description}
              onInput={(e) => set("description", e.currentTarget.value)}
            />
          )}
        </Field>
      </fieldset>
      <fieldset>
        <legend>Chunking</legend>
        <Field
          label="Strategy"
          error={err("chunkingStrategy")}
          hint={STRATEGIES.find(([v]) => v === c.chunkingStrategy)?.[2]}
        >
          {(ids) => (
            <select
              {...ids}
              value={c.chunkingStrategy}
              onChange={(e) => set("chunkingStrategy", e.currentTarget.value as ChunkingStrategy)}
            >
              {STRATEGIES.map(([v, label]) => (
                <option value={v}>{label}</option>
              ))}
            </select>
          )}
        </Field>
        <div class="grid-2">
          <NumberField
            label="Chunk size"
            suffix={unit}
            error={err("chunkSize")}
            hint={`50 to 20,000 ${unit}. 1,000 characters is a long paragraph.`}
            min={50}
            max={20000}
            value={c.chunkSize}
            onChange={num("chunkSize")}
          />
          <NumberField
            label="Overlap"
            suffix={unit}
            error={err("chunkOverlap")}
            hint="Shared by neighbouring chunks, so an idea cut at a boundary is still found."
            min={0}
            value={c.chunkOverlap}
            onChange={num("chunkOverlap")}
          />
        </div>
      </fieldset>
      <fieldset>
        <legend>Embedding and retrieval</legend>
        <ModelPicker
          value={c.embeddingModel}
          onChange={(v) => set("embeddingModel", v)}
          error={err("embeddingModel")}
        />
        <div class="grid-2">
          <Field
            label="Vector store"
            hint="LanceDB runs inside ragd; nothing else to set up."
            error={err("vectorProvider")}
          >
            {(ids) => (
              <select {...ids} value={c.vectorProvider} onChange={(e) => set("vectorProvider", e.currentTarget.value)}>
                <option value="lancedb">LanceDB (embedded)</option>
              </select>
            )}
          </Field>
          <NumberField
            label="Results per query (top-K)"
            error={err("retrievalTopK")}
            hint="Used when a query does not ask for a number. 1 to 100."
            min={1}
            max={100}
            value={c.retrievalTopK}
            onChange={num("retrievalTopK")}
          />
        </div>
        <NumberField
          label="Hybrid blend (alpha)"
          error={err("hybridAlpha")}
          hint="0 = keyword only, 1 = vector only. Empty = the measured default for the embedder."
          inputMode="decimal"
          min={0}
          max={1}
          step={0.05}
          placeholder="default"
          value={c.hybridAlpha}
          onChange={(v) => set("hybridAlpha", v)}
        />
        <Field
          label="Rerank model"
          error={err("rerankModel")}
          hint="Optional. A model of the reranking server ragd is started with (RAGD_RERANK_URL); empty = no reranking."
        >
          {(ids) => (
            <input
              {...ids}
              value={c.rerankModel ?? ""}
              maxLength={200}
              placeholder="none"
              onInput={(e) => set("rerankModel", e.currentTarget.value.trim() === "" ? null : e.currentTarget.value)}
            />
          )}
        </Field>
        <OcrLanguagesField
          value={c.ocrLanguages}
          error={err("ocrLanguages")}
          onChange={(v) => set("ocrLanguages", v)}
        />
      </fieldset>
      {footer}
      <ErrorNote error={error} />
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {busy ? "Saving…" : submitLabel}
        </button>
      </div>
      {afterActions}
    </form>
  );
}
