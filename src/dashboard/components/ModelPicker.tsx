/**
 * The embedding model field. Offers the models the server reports (the built-in
 * one and whatever Ollama has installed); without that endpoint, or for a model
 * not in the list, it is a plain text field.
 */
import { useEffect, useState } from "preact/hooks";
import { embeddingModels } from "../api/endpoints";
import type { EmbeddingModels } from "../api/types";
import { type Key, rich, t } from "../i18n";
import { useLoad } from "../lib/hooks";
import { Field } from "./Field";

const OTHER = "\u0000other";
/** The server's default when the endpoint does not say (docs/API.md, The built-in models). */
const DEFAULT_MODEL = "builtin-glove";
const PROVIDERS: [EmbeddingModels["models"][number]["provider"], Key][] = [
  ["builtin", "model.builtin"],
  ["ollama", "model.ollama"],
  ["openai", "model.openai"],
];

interface Props {
  value: string;
  onChange: (v: string) => void;
  error?: string;
}

/** A select of known models with an "Other…" escape, or a text field. */
export function ModelPicker({ value, onChange, error }: Props) {
  const models = useLoad(embeddingModels, []);
  const [other, setOther] = useState(false);
  const known = models.data?.models ?? [];
  // Until the effect below fills it in, an empty value shows as the default, so the
  // picker never flashes "Other" (and its text field) while the list arrives.
  const shown = value === "" ? (models.data?.default ?? DEFAULT_MODEL) : value;
  const listed = known.some((m) => m.name === shown);

  // An empty value means "the server's default": that of the endpoint, else builtin-glove.
  useEffect(() => {
    if (value === "" && !models.loading) onChange(models.data?.default ?? DEFAULT_MODEL);
  }, [models.loading]);

  if (!models.data) {
    return (
      <Field
        label={t("pipelineTable.model")}
        hint={models.loading ? t("model.looking") : t("model.nameHint")}
        error={error}
      >
        {(ids) => <input {...ids} value={value} onInput={(e) => onChange(e.currentTarget.value)} required />}
      </Field>
    );
  }
  const ollama = models.data.ollama;
  const showText = other || !listed;
  return (
    <>
      <Field
        label={t("pipelineTable.model")}
        error={showText ? undefined : error}
        hint={ollamaHint(
          ollama,
          known.some((m) => m.provider === "ollama"),
        )}
      >
        {(ids) => (
          <select
            {...ids}
            value={showText ? OTHER : shown}
            onChange={(e) => {
              const v = e.currentTarget.value;
              setOther(v === OTHER);
              if (v !== OTHER) onChange(v);
            }}
          >
            {PROVIDERS.map(([p, label]) => {
              const group = known.filter((m) => m.provider === p);
              if (!group.length) return null;
              return (
                <optgroup label={t(label)}>
                  {group.map((m) => (
                    <option value={m.name}>{m.name}</option>
                  ))}
                </optgroup>
              );
            })}
            <option value={OTHER}>{t("model.other")}</option>
          </select>
        )}
      </Field>
      {showText && (
        <Field label={t("model.name")} hint={t("model.nameHint")} error={error}>
          {(ids) => <input {...ids} value={value} onInput={(e) => onChange(e.currentTarget.value)} required />}
        </Field>
      )}
    </>
  );
}

function ollamaHint(o: EmbeddingModels["ollama"], hasOllamaModels: boolean) {
  if (o.reachable && hasOllamaModels) return t("model.ollamaListed", { url: o.url });
  const parts = { url: <code>{o.url}</code>, command: <code>ollama pull nomic-embed-text</code> };
  return rich(o.reachable ? "model.ollamaEmpty" : "model.ollamaDown", parts);
}
