/**
 * The embedding model field. Offers the models the server reports (the built-in
 * one and whatever Ollama has installed); without that endpoint, or for a model
 * not in the list, it is a plain text field.
 */
import { useEffect, useState } from "preact/hooks";
import { embeddingModels } from "../api/endpoints";
import type { EmbeddingModels } from "../api/types";
import { useLoad } from "../lib/hooks";
import { Field } from "./Field";

const OTHER = "\u0000other";
/** The server's default when the endpoint does not say (docs/API.md, The built-in models). */
const DEFAULT_MODEL = "builtin-glove";
const PROVIDERS: [EmbeddingModels["models"][number]["provider"], string][] = [
  ["builtin", "Built in"],
  ["ollama", "Ollama"],
  ["openai", "OpenAI-compatible"],
];
const NAME_HINT =
  "builtin-glove or builtin (work offline, nothing to install), ollama/<model> or a bare Ollama name, or openai/<model>.";

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
      <Field label="Embedding model" hint={models.loading ? "Looking for installed models…" : NAME_HINT} error={error}>
        {(ids) => <input {...ids} value={value} onInput={(e) => onChange(e.currentTarget.value)} required />}
      </Field>
    );
  }
  const ollama = models.data.ollama;
  const showText = other || !listed;
  return (
    <>
      <Field
        label="Embedding model"
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
                <optgroup label={label}>
                  {group.map((m) => (
                    <option value={m.name}>{m.name}</option>
                  ))}
                </optgroup>
              );
            })}
            <option value={OTHER}>Other (type a name)…</option>
          </select>
        )}
      </Field>
      {showText && (
        <Field label="Model name" hint={NAME_HINT} error={error}>
          {(ids) => <input {...ids} value={value} onInput={(e) => onChange(e.currentTarget.value)} required />}
        </Field>
      )}
    </>
  );
}

function ollamaHint(o: EmbeddingModels["ollama"], hasOllamaModels: boolean) {
  if (o.reachable && hasOllamaModels) return `The models installed in Ollama at ${o.url} are listed.`;
  if (o.reachable) {
    return (
      <>
        Ollama answers at <code>{o.url}</code> but has no models yet: run <code>ollama pull nomic-embed-text</code>.
      </>
    );
  }
  return (
    <>
      Ollama at <code>{o.url}</code> is not answering, so only the built-in model is offered. Start Ollama and run{" "}
      <code>ollama pull nomic-embed-text</code> to use it.
    </>
  );
}
