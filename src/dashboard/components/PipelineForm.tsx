/**
 * The pipeline settings form, shared by "New pipeline" and the Settings tab.
 * It checks what it can before sending (sizes, overlap below size) and shows the
 * API's own message on the field it names.
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { fieldError, type ApiError } from "../api/client";
import type { ChunkingStrategy, PipelineConfig } from "../api/types";
import { type Key, t } from "../i18n";
import { formatNumber } from "../lib/format";
import { ErrorNote } from "./ErrorNote";
import { Field } from "./Field";
import { ModelPicker } from "./ModelPicker";
import { NumberField } from "./NumberField";
import { LanguagePicker } from "./LanguagePicker";
import { checkLanguages, OcrLanguagesField } from "./OcrLanguagesField";

export const STRATEGIES: [ChunkingStrategy, Key, Key][] = [
  ["recursive", "strategy.recursive", "strategy.recursiveHint"],
  ["fixed", "strategy.fixed", "strategy.fixedHint"],
  ["sentence", "strategy.sentence", "strategy.sentenceHint"],
  ["paragraph", "strategy.paragraph", "strategy.paragraphHint"],
  ["markdown", "strategy.markdown", "strategy.markdownHint"],
  ["token", "strategy.token", "strategy.tokenHint"],
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
  language: "auto",
};

/** The editable fields of a pipeline: the keys of the defaults, which name every one of them. */
const CONFIG_KEYS = Object.keys(DEFAULT_CONFIG) as (keyof PipelineConfig)[];

/** The editable fields of a pipeline, without its id, counts and dates. */
export function configOf(p: PipelineConfig): PipelineConfig {
  return Object.fromEntries(CONFIG_KEYS.map((k) => [k, p[k]])) as PipelineConfig;
}

/**
 * Problems the browser can see before asking the server, by field. With `modelOptional`
 * (a new pipeline) an empty model is the server's default, which the picker shows
 * before the server's list has arrived (ModelPicker).
 */
export function checkConfig(c: PipelineConfig, modelOptional = false): Partial<Record<keyof PipelineConfig, string>> {
  const out: Partial<Record<keyof PipelineConfig, string>> = {};
  const unit = t(c.chunkingStrategy === "token" ? "form.tokens" : "form.characters");
  if (!c.name.trim()) out.name = t("form.needName");
  if (!Number.isInteger(c.chunkSize) || c.chunkSize < 50 || c.chunkSize > 20000)
    out.chunkSize = t("form.sizeRange", { min: 50, max: 20000, unit });
  if (!Number.isInteger(c.chunkOverlap) || c.chunkOverlap < 0) out.chunkOverlap = t("form.overlapWhole");
  else if (c.chunkOverlap >= c.chunkSize) out.chunkOverlap = t("form.overlapBelow", { size: c.chunkSize, unit });
  if (!Number.isInteger(c.retrievalTopK) || c.retrievalTopK < 1 || c.retrievalTopK > 100)
    out.retrievalTopK = t("form.topKRange", { min: 1, max: 100 });
  const a = c.hybridAlpha;
  if (a !== null && (Number.isNaN(a) || a < 0 || a > 1)) out.hybridAlpha = t("form.alphaRange");
  if (!c.embeddingModel.trim() && !modelOptional) out.embeddingModel = t("form.needModel");
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
  // A form that began without a model (a new pipeline) may be sent without one: the server's default.
  const modelOptional = initial.embeddingModel === "";
  const local = checked ? checkConfig(c, modelOptional) : {};
  const err = (k: keyof PipelineConfig) => local[k] ?? fieldError(error, k);
  const unit = t(c.chunkingStrategy === "token" ? "form.tokens" : "form.characters");
  const strategyHint = STRATEGIES.find(([v]) => v === c.chunkingStrategy)?.[2];

  const submit = (e: Event) => {
    e.preventDefault();
    setChecked(true);
    if (Object.keys(checkConfig(c, modelOptional)).length === 0) onSubmit({ ...c, name: c.name.trim() });
  };

  return (
    <form class="form" onSubmit={submit} noValidate>
      <fieldset>
        <legend>{t("form.about")}</legend>
        <Field label={t("common.name")} error={err("name")}>
          {(ids) => (
            <input {...ids} value={c.name} maxLength={200} onInput={(e) => set("name", e.currentTarget.value)} />
          )}
        </Field>
        <Field label={t("common.description")} hint={t("form.descriptionHint")}>
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
        <legend>{t("form.chunking")}</legend>
        <Field label={t("form.strategy")} error={err("chunkingStrategy")} hint={strategyHint && t(strategyHint)}>
          {(ids) => (
            <select
              {...ids}
              value={c.chunkingStrategy}
              onChange={(e) => set("chunkingStrategy", e.currentTarget.value as ChunkingStrategy)}
            >
              {STRATEGIES.map(([v, label]) => (
                <option value={v}>{t(label)}</option>
              ))}
            </select>
          )}
        </Field>
        <div class="grid-2">
          <NumberField
            label={t("form.chunkSize")}
            suffix={unit}
            error={err("chunkSize")}
            hint={t("form.chunkSizeHint", { min: 50, max: 20000, unit, example: formatNumber(1000) })}
            min={50}
            max={20000}
            value={c.chunkSize}
            onChange={num("chunkSize")}
          />
          <NumberField
            label={t("form.overlap")}
            suffix={unit}
            error={err("chunkOverlap")}
            hint={t("form.overlapHint")}
            min={0}
            value={c.chunkOverlap}
            onChange={num("chunkOverlap")}
          />
        </div>
      </fieldset>
      <fieldset>
        <legend>{t("form.embedding")}</legend>
        <ModelPicker
          value={c.embeddingModel}
          onChange={(v) => set("embeddingModel", v)}
          error={err("embeddingModel")}
        />
        <div class="grid-2">
          <Field label={t("form.vectorStore")} hint={t("form.vectorStoreHint")} error={err("vectorProvider")}>
            {(ids) => (
              <select {...ids} value={c.vectorProvider} onChange={(e) => set("vectorProvider", e.currentTarget.value)}>
                <option value="lancedb">{t("form.lancedb")}</option>
              </select>
            )}
          </Field>
          <NumberField
            label={t("form.topK")}
            error={err("retrievalTopK")}
            hint={t("form.topKHint", { min: 1, max: 100 })}
            min={1}
            max={100}
            value={c.retrievalTopK}
            onChange={num("retrievalTopK")}
          />
        </div>
        <NumberField
          label={t("form.alpha")}
          error={err("hybridAlpha")}
          hint={t("form.alphaHint")}
          inputMode="decimal"
          min={0}
          max={1}
          step={0.05}
          placeholder={t("form.default")}
          value={c.hybridAlpha}
          onChange={(v) => set("hybridAlpha", v)}
        />
        <Field label={t("form.rerank")} error={err("rerankModel")} hint={t("form.rerankHint")}>
          {(ids) => (
            <input
              {...ids}
              value={c.rerankModel ?? ""}
              maxLength={200}
              placeholder={t("common.none")}
              onInput={(e) => set("rerankModel", e.currentTarget.value.trim() === "" ? null : e.currentTarget.value)}
            />
          )}
        </Field>
        <LanguagePicker value={c.language} error={err("language")} onChange={(v) => set("language", v)} />
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
          {busy ? t("common.saving") : submitLabel}
        </button>
      </div>
      {afterActions}
    </form>
  );
}
