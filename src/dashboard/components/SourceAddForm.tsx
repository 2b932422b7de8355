/**
 * Adding a source: pick a kind (text, URL, API, file, folder, bucket, Git), fill in what it needs.
 * Text, URL, API, folder, bucket and Git sources start ingesting as soon as they are created; files
 * go through FileUpload (create the source, then PUT the bytes).
 */
import { useState } from "preact/hooks";
import { fieldError } from "../api/client";
import { sources, type NewSource } from "../api/endpoints";
import type { SourceType } from "../api/types";
import { type Key, t } from "../i18n";
import { useAction } from "../lib/hooks";
import { type MetaRow, fromRows } from "../lib/metadata-rows";
import { useApp } from "../lib/session";
import { ErrorNote } from "./ErrorNote";
import { Field } from "./Field";
import { FetchSettingsInput, fetchSettingsBody, NO_FETCH_SETTINGS } from "./FetchSettingsInput";
import { FileUpload } from "./FileUpload";
import { BucketInput, bucketBody, NO_BUCKET } from "./BucketInput";
import { GitInput, gitBody, NO_GIT } from "./GitInput";
import { MetadataRowsInput } from "./MetadataRowsInput";
import { Segmented } from "./Segmented";

const KINDS: [SourceType, Key, Key][] = [
  ["text", "sourceType.text", "addSource.textHint"],
  ["url", "addSource.url", "addSource.urlHint"],
  ["api", "sourceType.api", "addSource.apiHint"],
  ["file", "sourceType.file", "addSource.fileHint"],
  ["folder", "sourceType.folder", "addSource.folderHint"],
  ["s3", "sourceType.s3", "addSource.bucketHint"],
  ["git", "sourceType.git", "addSource.gitHint"],
];

/** A name from a URL when the user gave none: host and path. */
const nameFromUrl = (u: string): string => {
  try {
    const url = new URL(u);
    return `${url.host}${url.pathname === "/" ? "" : url.pathname}`;
  } catch {
    return u;
  }
};

/** The add-source form; `onAdded` refreshes the list. */
export function SourceAddForm({ pipelineId, onAdded }: { pipelineId: string; onAdded: () => void }) {
  const { notify } = useApp();
  const [kind, setKind] = useState<SourceType>("text");
  const [name, setName] = useState("");
  const [content, setContent] = useState("");
  const [url, setUrl] = useState("");
  const [externalId, setExternalId] = useState("");
  const [rows, setRows] = useState<MetaRow[]>([]);
  const [fetching, setFetching] = useState(NO_FETCH_SETTINGS);
  const [bucket, setBucket] = useState(NO_BUCKET);
  const [git, setGit] = useState(NO_GIT);
  const labels = fromRows(rows);
  const add = useAction(async (body: NewSource) => {
    if ("error" in labels) return;
    if (Object.keys(labels.metadata).length) body.metadata = labels.metadata;
    if (externalId.trim()) body.externalId = externalId.trim();
    if (body.type !== "text") Object.assign(body, fetchSettingsBody(fetching, body.type));
    const s = await sources.create(pipelineId, body);
    notify(t("addSource.added", { name: s.name }));
    setName("");
    setContent("");
    setUrl("");
    setExternalId("");
    setRows([]);
    setFetching(NO_FETCH_SETTINGS);
    setBucket(NO_BUCKET);
    setGit(NO_GIT);
    onAdded();
  });

  const submit = (e: Event) => {
    e.preventDefault();
    if (kind === "text") void add.run({ type: "text", name: name.trim() || content.trim().slice(0, 40), content });
    else if (kind === "folder") void add.run({ type: "folder", name: name.trim() || url.trim(), path: url.trim() });
    else if (kind === "s3") void add.run(bucketBody(bucket, name.trim()));
    else if (kind === "git") void add.run(gitBody(git, name.trim()));
    else void add.run({ type: kind, name: name.trim() || nameFromUrl(url.trim()), url: url.trim() });
  };

  const kindHint = KINDS.find(([k]) => k === kind)?.[2];
  return (
    <div>
      <Segmented
        legend={t("addSource.kind")}
        value={kind}
        options={KINDS.map(([k, label]) => [k, t(label)])}
        onChange={(k) => (setKind(k), add.setError(undefined))}
      />
      <p class="hint">{kindHint && t(kindHint)}</p>
      {kind === "file" ? (
        <FileUpload pipelineId={pipelineId} onUploaded={onAdded} />
      ) : (
        <form class="form" onSubmit={submit}>
          <Field label={t("common.name")} hint={t("addSource.nameHint")} error={fieldError(add.error, "name")}>
            {(ids) => <input {...ids} value={name} maxLength={200} onInput={(e) => setName(e.currentTarget.value)} />}
          </Field>
          {kind === "text" ? (
            <Field label={t("addSource.text")} error={fieldError(add.error, "content")}>
              {(ids) => (
                <textarea
                  {...ids}
                  rows={6}
                  required
                  value={content}
                  onInput={(e) => setContent(e.currentTarget.value)}
                />
              )}
            </Field>
          ) : kind === "s3" ? (
            <BucketInput value={bucket} onChange={setBucket} error={add.error} />
          ) : kind === "git" ? (
            <GitInput value={git} onChange={setGit} error={add.error} />
          ) : kind === "folder" ? (
            <Field
              label={t("addSource.folderPath")}
              hint={t("addSource.folderPathHint")}
              error={fieldError(add.error, "path")}
            >
              {(ids) => (
                <input
                  {...ids}
                  required
                  placeholder="/srv/share"
                  value={url}
                  onInput={(e) => setUrl(e.currentTarget.value)}
                />
              )}
            </Field>
          ) : (
            <Field
              label={kind === "api" ? t("addSource.apiAddress") : t("addSource.pageAddress")}
              hint={t("addSource.addressHint")}
              error={fieldError(add.error, "url")}
            >
              {(ids) => (
                <input
                  {...ids}
                  type="url"
                  required
                  placeholder="https://"
                  value={url}
                  onInput={(e) => setUrl(e.currentTarget.value)}
                />
              )}
            </Field>
          )}
          {(kind === "url" || kind === "api" || kind === "folder" || kind === "s3" || kind === "git") && (
            <details>
              <summary>{kind === "url" ? t("addSource.refreshCrawl") : t("addSource.refresh")}</summary>
              <FetchSettingsInput kind={kind} value={fetching} onChange={setFetching} error={add.error} />
            </details>
          )}
          <details>
            <summary>{t("addSource.metaSummary")}</summary>
            <div class="stack">
              <Field
                label={t("addSource.externalId")}
                hint={t("addSource.externalIdHint")}
                error={fieldError(add.error, "externalId")}
              >
                {(ids) => (
                  <input
                    {...ids}
                    value={externalId}
                    maxLength={256}
                    onInput={(e) => setExternalId(e.currentTarget.value)}
                  />
                )}
              </Field>
              <MetadataRowsInput
                label={t("addSource.metadata")}
                rows={rows}
                onChange={setRows}
                blank={() => ({ key: "", type: "text", value: "" })}
              />
              {"error" in labels && (
                <p class="field-error" role="alert">
                  {labels.error}
                </p>
              )}
            </div>
          </details>
          <ErrorNote error={add.error} context={t("addSource.failed")} />
          <div class="form-actions">
            <button type="submit" class="btn btn-primary" disabled={add.busy || "error" in labels}>
              {add.busy ? t("addSource.adding") : t("addSource.add")}
            </button>
          </div>
        </form>
      )}
    </div>
  );
}
