/** A webhook's newest deliveries: what was sent, how often, and how the receiver answered. */
import type { WebhookDelivery } from "../api/types";
import { formatDate } from "../lib/format";
import { TimeAgo } from "./TimeAgo";

const TONE: Record<string, string> = { delivered: "good", pending: "busy", failed: "bad" };

export function DeliveryLog({ items }: { items: WebhookDelivery[] }) {
  if (items.length === 0) return <p class="muted">No deliveries yet. They appear here as events happen.</p>;
  return (
    <div class="table-wrap">
      <table class="table table-cards">
        <caption class="sr-only">Deliveries</caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last answer</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {items.map((d) => (
            <tr key={d.id}>
              <th scope="row" data-label="Event">
                <code>{d.eventType}</code> <span class="muted">#{d.eventId}</span>
              </th>
              <td data-label="Status">
                <span class={`badge badge-${TONE[d.status] ?? "neutral"}`}>
                  <span class="badge-dot" aria-hidden="true" />
                  {d.status}
                </span>
                {d.nextAttemptAt && <span class="muted"> · next {formatDate(d.nextAttemptAt)}</span>}
              </td>
              <td data-label="Attempts">
                <AttemptList delivery={d} />
              </td>
              <td data-label="Last answer">
                {d.lastStatusCode !== null && <code>{d.lastStatusCode}</code>} {d.lastError ?? ""}
              </td>
              <td data-label="Created">
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
            {formatDate(a.at)}: {a.statusCode !== null ? <code>{a.statusCode}</code> : "no answer"}
            {a.error && a.statusCode === null ? ` (${a.error})` : ""} <span class="muted">{a.durationMs} ms</span>
          </li>
        ))}
      </ol>
    </details>
  );
}
