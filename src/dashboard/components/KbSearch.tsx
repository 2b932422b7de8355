/** Searching a knowledge base (session-authenticated: no API key needed). */
import { useState } from "preact/hooks";
import { knowledgeBases } from "../api/endpoints";
import type { KbSearchResponse } from "../api/types";
import { t } from "../i18n";
import { useAction } from "../lib/hooks";
import { ErrorNote } from "./ErrorNote";
import { Field } from "./Field";
import { ResultList } from "./ResultList";
import { TopKField } from "./TopKField";

/** A query box, a top-K and the ranked results. */
export function KbSearch({ kbId, hasDocuments }: { kbId: string; hasDocuments: boolean }) {
  const [query, setQuery] = useState("");
  const [topK, setTopK] = useState(5);
  const [res, setRes] = useState<KbSearchResponse | undefined>(undefined);
  const search = useAction(async () => setRes(await knowledgeBases.search(kbId, query.trim(), topK)));
  return (
    <>
      <section class="card" aria-labelledby="kb-search-h">
        <h2 id="kb-search-h">{t("common.search")}</h2>
        {/* biome-ignore lint/a11y/useSemanticElements: <search> is not yet styled or announced everywhere */}
        <form
          class="inline-form"
          role="search"
          onSubmit={(e) => (e.preventDefault(), query.trim() && void search.run())}
        >
          <Field label={t("common.query")}>
            {(ids) => <input {...ids} type="search" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />}
          </Field>
          <TopKField label={t("search.topK")} class="field-narrow" value={topK} onChange={setTopK} />
          <button type="submit" class="btn btn-primary" disabled={search.busy || !query.trim()}>
            {search.busy ? t("common.searching") : t("common.search")}
          </button>
        </form>
        <ErrorNote error={search.error} context={t("search.failed")} />
      </section>
      {res && <ResultList response={res} emptyHint={hasDocuments ? t("search.nothing") : t("kbSearch.noDocument")} />}
    </>
  );
}
