/** A webhook's newest deliveries: what was sent, how often, and how the receiver answered. */
import type { WebhookDelivery } from "../api/types";
import { type Key, t } from "../i18n";
import { formatDate } from "../lib/format";
import { TimeAgo } from "./TimeAgo";

const TONE: Record<string, string> = { delivered: "good", pending: "busy", failed: "bad" };
const STATUS: Record<string, Key> = {
  delivered: "deliveries.delivered",
  pending: "deliveries.pending",
  failed: "deliveries.failed",
};

export function DeliveryLog({ items }: { items: WebhookDelivery[] }) {
  if (items.length === 0) return <p class="muted">{t("deliveries.none")}</p>;
  return (
    <div class="table-wrap">
      <table class="table table-cards">
        <caption class="sr-only">{t("deliveries.caption")}</caption>
        <thead>
          <tr>
            <th scope="col">{t("deliveries.event")}</th>
            <th scope="col">{t("common.status")}</th>
            <th scope="col">{t("deliveries.attempts")}</th>
            <th scope="col">{t("deliveries.lastAnswer")}</th>
            <th scope="col">{t("common.created")}</th>
          </tr>
        </thead>
        <tbody>
          {items.map((d) => (
            <tr key={d.id}>
              <th scope="row" data-label={t("deliveries.event")}>
                <code>{d.eventType}</code> <span class="muted">#{d.eventId}</span>
              </th>
              <td data-label={t("common.status")}>
                <span class={`badge badge-${TONE[d.status] ?? "neutral"}`}>
                  <span class="badge-dot" aria-hidden="true" />
                  {STATUS[d.status] ? t(STATUS[d.status]!) : d.status}
                </span>
                {d.nextAttemptAt && (
                  <span class="muted"> · {t("deliveries.next", { at: formatDate(d.nextAttemptAt) })}</span>
                )}
              </td>
              <td data-label={t("deliveries.attempts")}>
                <AttemptList delivery={d} />
              </td>
              <td data-label={t("deliveries.lastAnswer")}>
                {d.lastStatusCode !== null && <code>{d.lastStatusCode}</code>} {d.lastError ?? ""}
              </td>
              <td data-label={t("common.created")}>
                <TimeAgo at={d.createdAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The count, and under it every try with its answer, so a flaky receiver shows as such. */
function AttemptList({ delivery }: { delivery: WebhookDelivery }) {
  if (delivery.attemptLog.length === 0) return <>{delivery.attempts}</>;
  return (
    <details>
      <summary>{delivery.attempts}</summary>
      <ol class="attempt-list">
        {delivery.attemptLog.map((a) => (
          <li key={a.attempt}>
            {formatDate(a.at)}: {a.statusCode !== null ? <code>{a.statusCode}</code> : t("deliveries.noAnswer")}
            {a.error && a.statusCode === null ? ` (${a.error})` : ""}{" "}
            <span class="muted">{t("common.ms", { ms: a.durationMs })}</span>
          </li>
        ))}
      </ol>
    </details>
  );
}
