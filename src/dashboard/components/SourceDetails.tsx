/** A source's details on its page: what it points at, its external id, labels, OCR, and fetch state. */
import type { Source } from "../api/types";
import { t } from "../i18n";
import { formatBytes } from "../lib/format";
import { SourceFetchInfo } from "./SourceFetchInfo";
import { TimeAgo } from "./TimeAgo";

export function SourceDetails({ source: s }: { source: Source }) {
  const labels = Object.entries(s.metadata ?? {});
  return (
    <section class="card" aria-labelledby="source-details-h">
      <h2 id="source-details-h">{t("source.details")}</h2>
      <dl class="source-facts">
        <dt>{t("source.type")}</dt>
        <dd>{s.type}</dd>
        {s.url && (
          <>
            <dt>{t("source.url")}</dt>
            <dd class="break">{s.url}</dd>
          </>
        )}
        {s.fileName && (
          <>
            <dt>{t("source.file")}</dt>
            <dd class="break">
              {s.fileName}
              {s.fileSize !== undefined && ` · ${formatBytes(s.fileSize)}`}
            </dd>
          </>
        )}
        {s.externalId && (
          <>
            <dt>{t("source.externalId")}</dt>
            <dd class="break">
              <code>{s.externalId}</code>
            </dd>
          </>
        )}
        <dt>{t("source.added")}</dt>
        <dd>
          <TimeAgo at={s.createdAt} />
        </dd>
        {s.indexedAt && (
          <>
            <dt>{t("source.indexed")}</dt>
            <dd>
              <TimeAgo at={s.indexedAt} />
            </dd>
          </>
        )}
        {s.ocr && (
          <>
            <dt>{t("source.ocr")}</dt>
            <dd>
              {t("count.pages", { count: s.ocr.pages })} · {s.ocr.languages.join(", ")}
            </dd>
          </>
        )}
        {labels.length > 0 && (
          <>
            <dt>{t("source.metadata")}</dt>
            <dd>
              <code class="break">{JSON.stringify(s.metadata)}</code>
            </dd>
          </>
        )}
      </dl>
      <SourceFetchInfo source={s} />
    </section>
  );
}
