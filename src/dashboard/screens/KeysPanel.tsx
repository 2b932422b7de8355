/**
 * The API keys of a pipeline (its Keys tab) or of a knowledge base (a section of its
 * page): create a key with its scopes and expiry (shown in full exactly once), see keys by
 * prefix with what they may do, when they expire, were made and last used, and revoke them.
 */
import { useState } from "preact/hooks";
import { type KeyOwner, keys } from "../api/endpoints";
import type { ApiKey, ApiKeyCreated } from "../api/types";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { EmptyState, Loading } from "../components/EmptyState";
import { ErrorNote } from "../components/ErrorNote";
import { KeyCreateForm } from "../components/KeyCreateForm";
import { KeyCreatedDialog } from "../components/KeyCreatedDialog";
import { KeyTable } from "../components/KeyTable";
import { rich, t } from "../i18n";
import { useAction, useLoad } from "../lib/hooks";
import { useApp } from "../lib/session";

/** A knowledge base's keys search it and mint tokens; they never ingest. */
const KB_SCOPES = ["query", "tokens"] as const;

/** Keys of one pipeline or knowledge base. */
export function KeysPanel({ owner }: { owner: KeyOwner }) {
  const { notify } = useApp();
  const kb = owner.kind === "kb";
  const list = useLoad(() => keys.list(owner), [owner.kind, owner.id]);
  const [created, setCreated] = useState<ApiKeyCreated | undefined>(undefined);
  const [doomed, setDoomed] = useState<ApiKey | undefined>(undefined);
  const revoke = useAction(async (k: ApiKey) => {
    await keys.revoke(owner, k.id);
    setDoomed(undefined);
    notify(t("keysPanel.revoked", { name: k.name }));
    await list.reload();
  });

  return (
    <div class="stack">
      <section class="card" aria-labelledby="new-key-h">
        <h2 id="new-key-h">{t("keysPanel.create")}</h2>
        <p class="muted">
          {kb
            ? rich("kbKeys.intro", { searchPath: <code>POST /api/kb/{owner.id}/search</code> })
            : rich("keysPanel.intro", {
                query: <strong>{t("keysPanel.queryWord")}</strong>,
                queryPath: <code>POST /api/rag/query</code>,
                ingest: <strong>{t("keysPanel.ingestWord")}</strong>,
                documentsPath: <code>/api/rag/documents</code>,
              })}
        </p>
        <KeyCreateForm
          scopes={kb ? KB_SCOPES : undefined}
          queryHint={kb ? t("kbKeys.queryHint") : undefined}
          create={({ name, ...opts }) => keys.create(owner, name, opts)}
          onCreated={async (k) => {
            setCreated(k);
            await list.reload();
          }}
        />
      </section>
      <section aria-labelledby="keys-h">
        <h2 id="keys-h">{t("keysPanel.keys")}</h2>
        <ErrorNote error={list.error} context={t("keysPanel.loadFailed")} />
        {!list.data && list.loading && <Loading />}
        {list.data?.length === 0 && (
          <EmptyState title={t("keysPanel.none")}>{t(kb ? "kbKeys.noneText" : "keysPanel.noneText")}</EmptyState>
        )}
        {list.data && list.data.length > 0 && <KeyTable items={list.data} onRevoke={setDoomed} />}
      </section>
      {created && (
        <KeyCreatedDialog created={created} kbId={kb ? owner.id : undefined} onClose={() => setCreated(undefined)} />
      )}
      {doomed && (
        <ConfirmDialog
          title={t("keysPanel.revokeTitle", { name: doomed.name })}
          confirmLabel={t("keysPanel.revokeKey")}
          busy={revoke.busy}
          error={revoke.error}
          onConfirm={() => void revoke.run(doomed)}
          onCancel={() => (setDoomed(undefined), revoke.setError(undefined))}
        >
          <p>{rich("keysPanel.revokeText", { prefix: <code>{doomed.prefix}…</code> })}</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
