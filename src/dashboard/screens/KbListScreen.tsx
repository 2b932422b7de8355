/** Knowledge bases: the list with document counts, and creating one. */
import { useState } from "preact/hooks";
import { fieldError } from "../api/client";
import { knowledgeBases } from "../api/endpoints";
import { EmptyState, Loading } from "../components/EmptyState";
import { ErrorNote } from "../components/ErrorNote";
import { Field } from "../components/Field";
import { TimeAgo } from "../components/TimeAgo";
import { rich, t } from "../i18n";
import { useAction, useLoad, useTitle } from "../lib/hooks";
import { useApp } from "../lib/session";
import { navigate } from "../router";

/** The list screen. */
export function KbListScreen() {
  useTitle(t("shell.kb"));
  const { notify } = useApp();
  const list = useLoad(knowledgeBases.list, []);
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const create = useAction(async () => {
    const kb = await knowledgeBases.create(name.trim(), description.trim() || undefined);
    notify(t("kbList.created", { name: kb.name }));
    navigate(`/kb/${encodeURIComponent(kb.id)}`);
  });

  return (
    <>
      <div class="page-head">
        <div>
          <h1>{t("shell.kb")}</h1>
          <p class="muted">{t("kbList.intro")}</p>
        </div>
      </div>
      <div class="stack">
        <section class="card" aria-labelledby="kb-new-h">
          <h2 id="kb-new-h">{t("kbList.new")}</h2>
          <form class="form grid-2" onSubmit={(e) => (e.preventDefault(), void create.run())}>
            <Field label={t("common.name")} error={fieldError(create.error, "name")}>
              {(ids) => (
                <input {...ids} required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
              )}
            </Field>
            <Field
              label={t("common.description")}
              hint={t("common.optional")}
              error={fieldError(create.error, "description")}
            >
              {(ids) => <input {...ids} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />}
            </Field>
            <div class="form-actions span-2">
              <button type="submit" class="btn btn-primary" disabled={create.busy || !name.trim()}>
                {create.busy ? t("common.creating") : t("kbList.create")}
              </button>
            </div>
          </form>
          <ErrorNote error={create.error} context={t("kbList.createFailed")} />
        </section>
        <ErrorNote error={list.error} context={t("kbList.loadFailed")} />
        {!list.data && list.loading && <Loading />}
        {list.data?.length === 0 && <EmptyState title={t("kbList.none")}>{t("kbList.noneText")}</EmptyState>}
        {list.data && list.data.length > 0 && (
          <ul class="cards" aria-label={t("shell.kb")}>
            {list.data.map((kb) => (
              <li class="card card-link" key={kb.id}>
                <a class="row-link" href={`#/kb/${encodeURIComponent(kb.id)}`}>
                  {kb.name}
                </a>
                <p class="muted clamp">{kb.description ?? t("kbList.noDescription")}</p>
                <p class="small muted">
                  {t("count.documents", { count: kb.documentCount ?? 0 })} ·{" "}
                  {rich("kbList.createdAt", { when: <TimeAgo at={kb.created_at} /> })}
                </p>
              </li>
            ))}
          </ul>
        )}
      </div>
    </>
  );
}
