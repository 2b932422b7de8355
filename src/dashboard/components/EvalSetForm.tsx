/**
 * A new evaluation set: typed rows (a query and the sources that should answer it,
 * chosen from the pipeline's sources) or a JSON Lines file of
 * {"query": "…", "sources": ["…"]} lines. The server checks every source.
 */
import { useState } from "preact/hooks";
import { evals } from "../api/endpoints";
import type { EvalQueryRow, EvalSet, Source } from "../api/types";
import { t } from "../i18n";
import { useAction } from "../lib/hooks";
import { ErrorNote } from "./ErrorNote";
import { Field } from "./Field";
import { FilePicker } from "./FilePicker";
import { Segmented } from "./Segmented";

type Input = "typed" | "jsonl";
const blank = (): EvalQueryRow => ({ query: "", expectedSourceIds: [] });

interface Props {
  pipelineId: string;
  sources: Source[];
  onCreated: (s: EvalSet) => void;
}

export function EvalSetForm({ pipelineId, sources, onCreated }: Props) {
  const [name, setName] = useState("");
  const [input, setInput] = useState<Input>("typed");
  const [rows, setRows] = useState<EvalQueryRow[]>([blank()]);
  const [jsonl, setJsonl] = useState<{ name: string; text: string } | null>(null);
  const filled = rows.filter((r) => r.query.trim() && r.expectedSourceIds.length > 0);
  const ready = name.trim() !== "" && (input === "typed" ? filled.length > 0 : jsonl !== null);
  const save = useAction(async () => {
    const body = input === "typed" ? { queries: filled } : { jsonl: jsonl!.text };
    const created = await evals.create(pipelineId, name.trim(), body);
    setName("");
    setRows([blank()]);
    setJsonl(null);
    onCreated(created);
  });
  const setRow = (i: number, patch: Partial<EvalQueryRow>) =>
    setRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));

  return (
    <form class="form" onSubmit={(e) => (e.preventDefault(), ready && void save.run())}>
      <Field label={t("evalForm.name")}>
        {(ids) => <input {...ids} value={name} maxLength={200} onInput={(e) => setName(e.currentTarget.value)} />}
      </Field>
      <Segmented
        legend={t("evalForm.how")}
        value={input}
        options={[
          ["typed", t("evalForm.typed")],
          ["jsonl", t("evalForm.jsonl")],
        ]}
        onChange={setInput}
      />
      {input === "typed" ? (
        <div class="stack">
          {rows.map((r, i) => (
            <div class="grid-2 eval-row">
              <Field label={t("evalForm.query", { n: i + 1 })}>
                {(ids) => (
                  <input
                    {...ids}
                    value={r.query}
                    placeholder={t("evalForm.queryPlaceholder")}
                    onInput={(e) => setRow(i, { query: e.currentTarget.value })}
                  />
                )}
              </Field>
              <Field label={t("evalForm.sources", { n: i + 1 })} hint={t("evalForm.sourcesHint")}>
                {(ids) => (
                  <select
                    {...ids}
                    multiple
                    size={Math.min(4, Math.max(2, sources.length))}
                    onChange={(e) =>
                      setRow(i, { expectedSourceIds: [...e.currentTarget.selectedOptions].map((o) => o.value) })
                    }
                  >
                    {sources.map((s) => (
                      <option value={s.id} selected={r.expectedSourceIds.includes(s.id)}>
                        {s.name}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
            </div>
          ))}
          <div>
            <button type="button" class="btn btn-small" onClick={() => setRows([...rows, blank()])}>
              {t("evalForm.add")}
            </button>
          </div>
        </div>
      ) : (
        <FilePicker
          label={jsonl ? t("evalForm.chosen", { name: jsonl.name }) : t("evalForm.file")}
          hint={t("evalForm.fileHint", {
            line: '{"query": "…", "sources": ["source id or externalId", …]}',
            max: 1000,
          })}
          accept=".jsonl,.ndjson,application/x-ndjson,application/json,text/plain"
          onPick={(f) => void f.text().then((text) => setJsonl({ name: f.name, text }))}
        />
      )}
      <ErrorNote error={save.error} context={t("evalForm.saveFailed")} />
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={!ready || save.busy}>
          {save.busy ? t("common.saving") : t("evalForm.save")}
        </button>
      </div>
    </form>
  );
}
