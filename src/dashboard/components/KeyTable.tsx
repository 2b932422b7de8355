/** The keys of a pipeline by prefix, with their scopes, expiry, created and last-used times. */
import type { ApiKey } from "../api/types";
import { t } from "../i18n";
import { formatDate, formatDay } from "../lib/format";
import { TimeAgo } from "./TimeAgo";

/** A table on wide screens, stacked on a phone. */
export function KeyTable({ items, onRevoke }: { items: ApiKey[]; onRevoke: (k: ApiKey) => void }) {
  return (
    <div class="table-wrap">
      <table class="table table-cards">
        <caption class="sr-only">{t("keys.caption")}</caption>
        <thead>
          <tr>
            <th scope="col">{t("common.name")}</th>
            <th scope="col">{t("keys.key")}</th>
            <th scope="col">{t("keys.scopes")}</th>
            <th scope="col">{t("keys.expires")}</th>
            <th scope="col">{t("common.created")}</th>
            <th scope="col">{t("keys.lastUsed")}</th>
            <th scope="col">
              <span class="sr-only">{t("common.actions")}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {items.map((k) => (
            <tr key={k.id}>
              <th scope="row" data-label={t("common.name")}>
                {k.name}
              </th>
              <td data-label={t("keys.key")}>
                <code>{k.prefix}…</code>
              </td>
              <td data-label={t("keys.scopes")}>
                {k.scopes.join(", ")}
                {k.filter != null && (
                  <div class="muted small">
                    {t("keys.filter")} <code>{JSON.stringify(k.filter)}</code>
                  </div>
                )}
              </td>
              <td data-label={t("keys.expires")}>
                <Expiry at={k.expiresAt} />
              </td>
              <td data-label={t("common.created")}>
                <TimeAgo at={k.createdAt} />
              </td>
              <td data-label={t("keys.lastUsed")}>
                {k.lastUsedAt ? <TimeAgo at={k.lastUsedAt} /> : <span class="muted">{t("common.never")}</span>}
              </td>
              <td class="actions">
                <button
                  type="button"
                  class="btn btn-small btn-ghost-danger"
                  onClick={() => onRevoke(k)}
                  aria-label={t("keys.revokeWhat", { name: k.name })}
                >
                  {t("keys.revoke")}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** When a key expires: never, a date, or a warning once it has. */
function Expiry({ at }: { at: string | null }) {
  if (!at) return <span class="muted">{t("common.never")}</span>;
  const past = Date.parse(at) <= Date.now();
  return (
    <time dateTime={at} title={formatDate(at)} class={past ? "badge badge-bad" : undefined}>
      {past ? t("keys.expired") : formatDay(at)}
    </time>
  );
}
