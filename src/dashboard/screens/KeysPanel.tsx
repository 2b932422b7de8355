/**
 * The API keys tab: create a key (shown in full exactly once), see keys by prefix
 * with when they were made and last used, and revoke them.
 */
import { useState } from "preact/hooks";
import { fieldError } from "../api/client";
import { keys } from "../api/endpoints";
import type { ApiKey, ApiKeyCreated, Pipeline } from "../api/types";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { EmptyState, Loading } from "../components/EmptyState";
import { ErrorNote } from "../components/ErrorNote";
import { Field } from "../components/Field";
import { KeyCreatedDialog } from "../components/KeyCreatedDialog";
import { KeyTable } from "../components/KeyTable";
import { useAction, useLoad } from "../lib/hooks";
import { useApp } from "../lib/session";
import { forgetPlaygroundKey } from "../lib/playground-key";

/** Keys of one pipeline. */
export function KeysPanel({ pipeline }: { pipeline: Pipeline }) {
  const { notify } = useApp();
  const list = useLoad(() => keys.list(pipeline.id), [pipeline.id]);
  const [name, setName] = useState("");
  const [created, setCreated] = useState<ApiKeyCreated | undefined>(undefined);
  const [doomed, setDoomed] = useState<ApiKey | undefined>(undefined);
  const create = useAction(async () => {
    const k = await keys.create(pipeline.id, name.trim());
    setCreated(k);
    setName("");
    await list.reload();
  });
  const revoke = useAction(async (k: ApiKey) => {
    await keys.revoke(pipeline.id, k.id);
    forgetPlaygroundKey(pipeline.id, k.prefix);
    setDoomed(undefined);
    notify(`Key “${k.name}” revoked.`);
    await list.reload();
  });

  return (
    <div class="stack">
      <section class="card" aria-labelledby="new-key-h">
        <h2 id="new-key-h">Create an API key</h2>
        <p class="muted">
          A key lets a program query this pipeline (and nothing else) with <code>POST /api/rag/query</code>.
        </p>
        <form class="inline-form" onSubmit={(e) => (e.preventDefault(), void create.run())}>
          <Field
            label="Key name"
            hint="Say where it will be used, e.g. “support bot”."
            error={fieldError(create.error, "name")}
          >
            {(ids) => (
              <input {...ids} required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
            )}
          </Field>
          <button type="submit" class="btn btn-primary" disabled={create.busy || !name.trim()}>
            {create.busy ? "Creating…" : "Create key"}
          </button>
        </form>
        <ErrorNote error={create.error} context="Could not create the key" />
      </section>
      <section aria-labelledby="keys-h">
        <h2 id="keys-h">Keys</h2>
        <ErrorNote error={list.error} context="Could not load the keys" />
        {!list.data && list.loading && <Loading />}
        {list.data?.length === 0 && (
          <EmptyState title="No keys yet">
            Create one above to query this pipeline from your code or the playground.
          </EmptyState>
        )}
        {list.data && list.data.length > 0 && <KeyTable items={list.data} onRevoke={setDoomed} />}
      </section>
      {created && <KeyCreatedDialog created={created} onClose={() => setCreated(undefined)} />}
      {doomed && (
        <ConfirmDialog
          title={`Revoke “${doomed.name}”?`}
          confirmLabel="Revoke key"
          busy={revoke.busy}
          error={revoke.error}
          onConfirm={() => void revoke.run(doomed)}
          onCancel={() => (setDoomed(undefined), revoke.setError(undefined))}
        >
          <p>
            Programs using <code>{doomed.prefix}…</code> get “401 invalid API key” from the next query on. The key is
            deleted and cannot be brought back.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}
