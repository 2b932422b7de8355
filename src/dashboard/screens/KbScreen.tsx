/**
 * One knowledge base: upload documents (with progress), watch their status,
 * search them, delete documents or the whole base.
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
import { plural } from "../lib/format";
import { useAction, useLoad, usePoll, useTitle } from "../lib/hooks";
import { useApp } from "../lib/session";
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
  useTitle(kb.data?.name ?? "Knowledge base");
  const [confirm, setConfirm] = useState(false);
  const remove = useAction(async () => {
    await knowledgeBases.remove(id);
    notify(`Knowledge base “${kb.data?.name}” deleted.`);
    navigate("/kb");
  });

  if (kb.error?.status === 404 && !kb.data) {
    return (
      <EmptyState
        title="This knowledge base is not here"
        action={
          <a class="btn btn-primary" href="#/kb">
            Back to knowledge bases
          </a>
        }
      >
        It may have been deleted
        {kb.error.message === "no such route" ? ", or this server does not offer knowledge bases yet" : ""}.
      </EmptyState>
    );
  }
  if (!kb.data)
    return kb.error ? <ErrorNote error={kb.error} context="Could not load the knowledge base" /> : <Loading />;
  const data = kb.data;

  return (
    <>
      <nav class="crumbs" aria-label="Breadcrumb">
        <a href="#/kb">Knowledge bases</a> <span aria-hidden="true">/</span>{" "}
        <span aria-current="page">{data.name}</span>
      </nav>
      <div class="page-head">
        <div>
          <h1>{data.name}</h1>
          <p class="muted">
            {data.description ? `${data.description} · ` : ""}
            {plural(docs.length, "document")}
          </p>
        </div>
        <button type="button" class="btn btn-ghost-danger" onClick={() => setConfirm(true)}>
          Delete…
        </button>
      </div>
      <div class="stack">
        <section class="card" aria-labelledby="kb-up-h">
          <h2 id="kb-up-h">Upload documents</h2>
          <KbUpload kbId={id} onUploaded={kb.reload} />
        </section>
        <KbDocuments kbId={id} documents={docs} onChanged={kb.reload} />
        <KbSearch kbId={id} hasDocuments={docs.some((d) => d.status === "ready")} />
      </div>
      {confirm && (
        <ConfirmDialog
          title={`Delete “${data.name}”?`}
          confirmLabel="Delete knowledge base"
          busy={remove.busy}
          error={remove.error}
          onConfirm={() => void remove.run()}
          onCancel={() => (setConfirm(false), remove.setError(undefined))}
        >
          <p>
            This removes the knowledge base, its {plural(docs.length, "document")}, their stored files and every indexed
            chunk. There is no undo.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
