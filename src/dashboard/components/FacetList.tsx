/** The `facets` of an answer: per metadata key, its most frequent values and their chunk counts. */
import type { QueryResponse } from "../api/types";
import { t } from "../i18n";

interface Props {
  facets: NonNullable<QueryResponse["facets"]>;
  truncated?: boolean;
}

export function FacetList({ facets, truncated }: Props) {
  return (
    <section class="card" aria-labelledby="facets-h" data-testid="facets">
      <h3 id="facets-h">{t("results.facets")}</h3>
      <dl class="facets">
        {Object.entries(facets).map(([key, values]) => (
          <div key={key}>
            <dt>{key}</dt>
            <dd>
              {values.length === 0
                ? t("common.none")
                : values.map((v) => t("results.facetValue", { value: String(v.value), count: v.count })).join(" · ")}
            </dd>
          </div>
        ))}
      </dl>
      {truncated && <p class="muted small">{t("results.facetsTruncated")}</p>}
    </section>
  );
}
