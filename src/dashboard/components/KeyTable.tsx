/** The keys of a pipeline by prefix, with their scopes, expiry, created and last-used times. */
import type { ApiKey } from "../api/types";
import { formatDate } from "../lib/format";
import { TimeAgo } from "./TimeAgo";

/** A table on wide screens, stacked on a phone. */
export function KeyTable({ items, onRevoke }: { items: ApiKey[]; onRevoke: (k: ApiKey) => void }) {
  return (
    <div class="table-wrap">
      <table class="table table-cards">
        <caption class="sr-only">API keys</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Key</th>
            <th scope="col">Scopes</th>
            <th scope="col">Expires</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {items.map((k) => (
            <tr key={k.id}>
              <th scope="row" data-label="Name">
                {k.name}
              </th>
              <td data-label="Key">
                <code>{k.prefix}…</code>
              </td>
              <td data-label="Scopes">{k.scopes.join(", ")}</td>
              <td data-label="Expires">
                <Expiry at={k.expiresAt} />
              </td>
              <td data-label="Created">
                <TimeAgo at={k.createdAt} />
              </td>
              <td data-label="Last used">
                {k.lastUsedAt ? <TimeAgo at={k.lastUsedAt} /> : <span class="muted">never</span>}
              </td>
              <td class="actions">
                <button
                  type="button"
                  class="btn btn-small btn-ghost-danger"
                  onClick={() => onRevoke(k)}
                  aria-label={`Revoke ${k.name}`}
                >
                  Revoke
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
  if (!at) return <span class="muted">never</span>;
  const past = Date.parse(at) <= Date.now();
  return (
    <time dateTime={at} title={formatDate(at)} class={past ? "badge badge-bad" : undefined}>
      {past ? "expired" : formatDate(at)}
    </time>
  );
}
