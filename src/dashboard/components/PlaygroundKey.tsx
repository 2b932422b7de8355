/** Which API key the playground uses: paste one, or make a "playground" key on the spot. */
import { useState } from "preact/hooks";
import { keys } from "../api/endpoints";
import type { Pipeline } from "../api/types";
import { useAction } from "../lib/hooks";
import { forgetPlaygroundKey, savePlaygroundKey } from "../lib/playground-key";
import { ErrorNote } from "./ErrorNote";
import { Field } from "./Field";

interface Props {
  pipeline: Pipeline;
  apiKey: string | null;
  onKey: (k: string | null) => void;
}

/** Shows the key in use, or the two ways to get one. */
export function PlaygroundKey({ pipeline, apiKey, onKey }: Props) {
  const [pasted, setPasted] = useState("");
  const use = (k: string) => (savePlaygroundKey(pipeline.id, k), onKey(k));
  const create = useAction(async () => use((await keys.create(pipeline.id, "playground")).key));
  const pastedOk = /^rag_\S{8,}$/.test(pasted.trim());

  if (apiKey) {
    return (
      <section class="card keybar" aria-label="API key">
        <p>
          Querying with key <code>{apiKey.slice(0, 12)}…</code>{" "}
          <span class="muted">(remembered in this browser tab only)</span>
        </p>
        <button type="button" class="btn btn-small" onClick={() => (forgetPlaygroundKey(pipeline.id), onKey(null))}>
          Use another key
        </button>
      </section>
    );
  }
  return (
    <section class="card" aria-labelledby="pg-key-h">
      <h2 id="pg-key-h">API key</h2>
      <p class="muted">The playground queries like your programs do, with an API key of this pipeline.</p>
      <div class="split">
        <form class="inline-form" onSubmit={(e) => (e.preventDefault(), pastedOk && use(pasted.trim()))}>
          <Field
            label="Paste a key"
            error={pasted && !pastedOk ? "A key starts with rag_ and is about 44 characters long." : undefined}
          >
            {(ids) => (
              <input
                {...ids}
                class="mono"
                autoComplete="off"
                spellcheck={false}
                placeholder="rag_…"
                value={pasted}
                onInput={(e) => setPasted(e.currentTarget.value)}
              />
            )}
          </Field>
          <button type="submit" class="btn" disabled={!pastedOk}>
            Use key
          </button>
        </form>
        <div class="split-or" aria-hidden="true">
          or
        </div>
        <div>
          <button type="button" class="btn btn-primary" onClick={() => void create.run()} disabled={create.busy}>
            {create.busy ? "Creating…" : "Create a playground key"}
          </button>
          <p class="hint">A key named “playground”; revoke it on the API keys tab when done.</p>
        </div>
      </div>
      <ErrorNote error={create.error} context="Could not create a key" />
    </section>
  );
}
