/**
 * Adding a source: pick a kind (text, URL, API, file), fill in what it needs.
 * Text, URL and API sources start ingesting as soon as they are created; files
 * go through FileUpload (create the source, then PUT the bytes).
 */
import { useState } from "preact/hooks";
import { fieldError } from "../api/client";
import { sources, type NewSource } from "../api/endpoints";
import type { SourceType } from "../api/types";
import { useAction } from "../lib/hooks";
import { type MetaRow, fromRows } from "../lib/metadata-rows";
import { useApp } from "../lib/session";
import { ErrorNote } from "./ErrorNote";
import { Field } from "./Field";
import { FetchSettingsInput, fetchSettingsBody, NO_FETCH_SETTINGS } from "./FetchSettingsInput";
import { FileUpload } from "./FileUpload";
import { MetadataRowsInput } from "./MetadataRowsInput";
import { Segmented } from "./Segmented";

const KINDS: [SourceType, string, string][] = [
  ["text", "Text", "Paste text; it is indexed as it is."],
  ["url", "Web page", "ragd fetches the page and keeps its readable text."],
  ["api", "API", "ragd GETs the address and indexes the JSON or text it answers."],
  ["file", "File", "Documents, spreadsheets, slides and e-books: ragd indexes their text."],
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
  const labels = fromRows(rows);
  const add = useAction(async (body: NewSource) => {
    if ("error" in labels) return;
    if (Object.keys(labels.metadata).length) body.metadata = labels.metadata;
    if (externalId.trim()) body.externalId = externalId.trim();
    if (body.type === "url" || body.type === "api") Object.assign(body, fetchSettingsBody(fetching, body.type));
    const s = await sources.create(pipelineId, body);
    notify(`Source “${s.name}” added; ragd is indexing it.`);
    setName("");
    setContent("");
    setUrl("");
    setExternalId("");
    setRows([]);
    setFetching(NO_FETCH_SETTINGS);
    onAdded();
  });

  const submit = (e: Event) => {
    e.preventDefault();
    if (kind === "text") void add.run({ type: "text", name: name.trim() || content.trim().slice(0, 40), content });
    else void add.run({ type: kind, name: name.trim() || nameFromUrl(url.trim()), url: url.trim() });
  };

  return (
    <div>
      <Segmented
        legend="Kind of source"
        value={kind}
        options={KINDS.map(([k, label]) => [k, label])}
        onChange={(k) => (setKind(k), add.setError(undefined))}
      />
      <p class="hint">{KINDS.find(([k]) => k === kind)?.[2]}</p>
      {kind === "file" ? (
        <FileUpload pipelineId={pipelineId} onUploaded={onAdded} />
      ) : (
        <form class="form" onSubmit={submit}>
          <Field
            label="Name"
            hint="Shown in results as the source name. Optional."
            error={fieldError(add.error, "name")}
          >
            {(ids) => <input {...ids} value={name} maxLength={200} onInput={(e) => setName(e.currentTarget.value)} />}
          </Field>
          {kind === "text" ? (
            <Field label="Text to index" error={fieldError(add.error, "content")}>
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
          ) : (
            <Field
              label={kind === "api" ? "API address" : "Page address"}
              hint="Loopback and link-local addresses are refused; intranet addresses are fine."
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
          {(kind === "url" || kind === "api") && (
            <details>
              <summary>{kind === "url" ? "Refresh and crawl (optional)" : "Refresh (optional)"}</summary>
              <FetchSettingsInput kind={kind} value={fetching} onChange={setFetching} error={add.error} />
            </details>
          )}
          <details>
            <summary>Metadata and external id (optional)</summary>
            <div class="stack">
              <Field
                label="External id"
                hint="The id your own system knows this document by; unique in the pipeline."
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
                label="Metadata (queries can filter on it)"
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
          <ErrorNote error={add.error} context="Could not add the source" />
          <div class="form-actions">
            <button type="submit" class="btn btn-primary" disabled={add.busy || "error" in labels}>
              {add.busy ? "Adding…" : "Add source"}
            </button>
          </div>
        </form>
      )}
    </div>
  );
}
