/**
 * One knowledge base: upload documents (with progress), watch their status,
 * search them, hand keys to applications and agents, delete documents or the whole base.
 */
import { useState } from "preact/hooks";
import { knowledgeBases } from "../api/endpoints";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { EmptyState, Loading } from "../components/EmptyState";
import { ErrorNote } from "../components/ErrorNote";
import { KbDocuments } from "../components/KbDocuments";
import { KbSearch } from "../components/KbSearch";
import { KbUpload } from "../components/KbUpload";
import { isBusy } from "../components/StatusBadge";
import { t } from "../i18n";
import { useAction, useLoad, usePoll, useTitle } from "../lib/hooks";
import { useApp } from "../lib/session";
import { KeysPanel } from "./KeysPanel";
import { navigate } from "../router";

/** The knowledge-base page. */
export function KbScreen({ id }: { id: string }) {
  const { notify } = useApp();
  const kb = useLoad(() => knowledgeBases.get(id), [id]);
  const docs = kb.data?.documents ?? [];
  usePoll(
    docs.some((d) => isBusy(d.status)),
    kb.reload,
  );
  useTitle(kb.data?.name ?? t("kb.title"));
  const [confirm, setConfirm] = useState(false);
  const remove = useAction(async () => {
    await knowledgeBases.remove(id);
    notify(t("kb.deleted", { name: kb.data?.name ?? "" }));
    navigate("/kb");
  });

  if (kb.error?.status === 404 && !kb.data) {
    return (
      <EmptyState
        title={t("kb.notHere")}
        action={
          <a class="btn btn-primary" href="#/kb">
            {t("kb.back")}
          </a>
        }
      >
        {kb.error.message === "no such route" ? t("kb.deletedOrMissing") : t("kb.maybeDeleted")}
      </EmptyState>
    );
  }
  if (!kb.data) return kb.error ? <ErrorNote error={kb.error} context={t("kb.loadFailed")} /> : <Loading />;
  const data = kb.data;

  return (
    <>
      <nav class="crumbs" aria-label={t("common.breadcrumb")}>
        <a href="#/kb">{t("shell.kb")}</a> <span aria-hidden="true">/</span>{" "}
        <span aria-current="page">{data.name}</span>
      </nav>
      <div class="page-head">
        <div>
          <h1>{data.name}</h1>
          <p class="muted">
            {data.description ? `${data.description} · ` : ""}
            {t("count.documents", { count: docs.length })}
          </p>
        </div>
        <button type="button" class="btn btn-ghost-danger" onClick={() => setConfirm(true)}>
          {t("adminUsers.delete")}
        </button>
      </div>
      <div class="stack">
        <section class="card" aria-labelledby="kb-up-h">
          <h2 id="kb-up-h">{t("kb.upload")}</h2>
          <KbUpload kbId={id} onUploaded={kb.reload} />
        </section>
        <KbDocuments kbId={id} documents={docs} onChanged={kb.reload} />
        <KbSearch kbId={id} hasDocuments={docs.some((d) => d.status === "ready")} />
        <KeysPanel owner={{ kind: "kb", id }} />
      </div>
      {confirm && (
        <ConfirmDialog
          title={t("deletePipeline.confirmTitle", { name: data.name })}
          confirmLabel={t("kb.confirm")}
          busy={remove.busy}
          error={remove.error}
          onConfirm={() => void remove.run()}
          onCancel={() => (setConfirm(false), remove.setError(undefined))}
        >
          <p>{t("kb.confirmText", { documents: t("count.documents", { count: docs.length }) })}</p>
        </ConfirmDialog>
      )}
    </>
  );
}
