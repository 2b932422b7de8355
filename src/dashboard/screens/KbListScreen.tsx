/** Knowledge bases: the list with document counts, and creating one. */
import { useState } from "preact/hooks";
import { fieldError } from "../api/client";
import { knowledgeBases } from "../api/endpoints";
import { EmptyState, Loading } from "../components/EmptyState";
import { ErrorNote } from "../components/ErrorNote";
import { Field } from "../components/Field";
import { plural } from "../lib/format";
import { TimeAgo } from "../components/TimeAgo";
import { useAction, useLoad, useTitle } from "../lib/hooks";
import { useApp } from "../lib/session";
import { navigate } from "../router";

/** The list screen. */
export function KbListScreen() {
  useTitle("Knowledge bases");
  const { notify } = useApp();
  const list = useLoad(knowledgeBases.list, []);
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const create = useAction(async () => {
    const kb = await knowledgeBases.create(name.trim(), description.trim() || undefined);
    notify(`Knowledge base “${kb.name}” created.`);
    navigate(`/kb/${encodeURIComponent(kb.id)}`);
  });

  return (
    <>
      <div class="page-head">
        <div>
          <h1>Knowledge bases</h1>
          <p class="muted">
            Folders of documents: upload files, ragd extracts, chunks and embeds them, then search them here.
          </p>
        </div>
      </div>
      <div class="stack">
        <section class="card" aria-labelledby="kb-new-h">
          <h2 id="kb-new-h">New knowledge base</h2>
          <form class="form grid-2" onSubmit={(e) => (e.preventDefault(), void create.run())}>
            <Field label="Name" error={fieldError(create.error, "name")}>
              {(ids) => (
                <input {...ids} required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
              )}
            </Field>
            <Field label="Description" hint="Optional." error={fieldError(create.error, "description")}>
              {(ids) => <input {...ids} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />}
            </Field>
            <div class="form-actions span-2">
              <button type="submit" class="btn btn-primary" disabled={create.busy || !name.trim()}>
                {create.busy ? "Creating…" : "Create knowledge base"}
              </button>
            </div>
          </form>
          <ErrorNote error={create.error} context="Could not create it" />
        </section>
        <ErrorNote error={list.error} context="Could not load knowledge bases" />
        {!list.data && list.loading && <Loading />}
        {list.data?.length === 0 && (
          <EmptyState title="No knowledge bases yet">
            Create one above, then upload PDFs, Word files or notes into it.
          </EmptyState>
        )}
        {list.data && list.data.length > 0 && (
          <ul class="cards" aria-label="Knowledge bases">
            {list.data.map((kb) => (
              <li class="card card-link" key={kb.id}>
                <a class="row-link" href={`#/kb/${encodeURIComponent(kb.id)}`}>
                  {kb.name}
                </a>
                <p class="muted clamp">{kb.description ?? "No description"}</p>
                <p class="small muted">
                  {plural(kb.documentCount ?? 0, "document")} · created <TimeAgo at={kb.created_at} />
                </p>
              </li>
            ))}
          </ul>
        )}
      </div>
    </>
  );
}
