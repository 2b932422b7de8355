/**
 * The Webhooks tab: add a URL that receives the pipeline's events (the signing
 * secret is shown once), see and delete webhooks, and read each one's delivery log.
 */
import { useState } from "preact/hooks";
import { fieldError } from "../api/client";
import { webhooks } from "../api/endpoints";
import type { Pipeline, Webhook, WebhookCreated } from "../api/types";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { DeliveryLog } from "../components/DeliveryLog";
import { EmptyState, Loading } from "../components/EmptyState";
import { ErrorNote } from "../components/ErrorNote";
import { Field } from "../components/Field";
import { WebhookSecretDialog } from "../components/WebhookSecretDialog";
import { EVENT_TYPES } from "../lib/events";
import { useAction, useLoad, usePoll } from "../lib/hooks";
import { useApp } from "../lib/session";

const SUBSCRIBABLE = EVENT_TYPES.filter((t) => t !== "stream.reset");

export function WebhooksPanel({ pipeline }: { pipeline: Pipeline }) {
  const { notify } = useApp();
  const list = useLoad(() => webhooks.list(pipeline.id), [pipeline.id]);
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [events, setEvents] = useState<string[]>([]);
  const [created, setCreated] = useState<WebhookCreated | undefined>(undefined);
  const [doomed, setDoomed] = useState<Webhook | undefined>(undefined);
  const [shown, setShown] = useState<Webhook | undefined>(undefined);
  const create = useAction(async () => {
    const w = await webhooks.create(pipeline.id, {
      url: url.trim(),
      ...(events.length > 0 ? { events } : {}),
      ...(description.trim() ? { description: description.trim() } : {}),
    });
    setCreated(w);
    setUrl("");
    setDescription("");
    setEvents([]);
    await list.reload();
  });
  const remove = useAction(async (w: Webhook) => {
    await webhooks.remove(pipeline.id, w.id);
    setDoomed(undefined);
    if (shown?.id === w.id) setShown(undefined);
    notify("Webhook deleted.");
    await list.reload();
  });
  const toggle = (t: string, on: boolean) => setEvents((e) => (on ? [...e, t] : e.filter((x) => x !== t)));

  return (
    <div class="stack">
      <section class="card" aria-labelledby="new-hook-h">
        <h2 id="new-hook-h">Add a webhook</h2>
        <p class="muted">
          ragd POSTs each event as JSON to this URL, signed with a secret, and tries again for about an hour if it
          fails.
        </p>
        <form class="stack" onSubmit={(e) => (e.preventDefault(), void create.run())}>
          <Field label="URL" hint="http(s), reachable from the ragd server" error={fieldError(create.error, "url")}>
            {(ids) => (
              <input
                {...ids}
                type="url"
                required
                maxLength={2048}
                value={url}
                placeholder="https://example.com/ragd-hook"
                onInput={(e) => setUrl(e.currentTarget.value)}
              />
            )}
          </Field>
          <Field label="Description" hint="Optional" error={fieldError(create.error, "description")}>
            {(ids) => (
              <input
                {...ids}
                maxLength={500}
                value={description}
                onInput={(e) => setDescription(e.currentTarget.value)}
              />
            )}
          </Field>
          <fieldset>
            <legend class="label">Events (none ticked: all)</legend>
            {SUBSCRIBABLE.map((t) => (
              <label class="check" key={t}>
                <input
                  type="checkbox"
                  checked={events.includes(t)}
                  onChange={(e) => toggle(t, e.currentTarget.checked)}
                />
                <code>{t}</code>
              </label>
            ))}
          </fieldset>
          <div>
            <button type="submit" class="btn btn-primary" disabled={create.busy || !url.trim()}>
              {create.busy ? "Adding…" : "Add webhook"}
            </button>
          </div>
        </form>
        <ErrorNote error={create.error} context="Could not add the webhook" />
      </section>
      <section aria-labelledby="hooks-h">
        <h2 id="hooks-h">Webhooks</h2>
        <ErrorNote error={list.error} context="Could not load the webhooks" />
        {!list.data && list.loading && <Loading />}
        {list.data?.length === 0 && (
          <EmptyState title="No webhooks yet">Add one above to hear about events.</EmptyState>
        )}
        {list.data && list.data.length > 0 && (
          <ul class="rows" aria-label="Webhooks">
            {list.data.map((w) => (
              <li key={w.id} class="row">
                <div>
                  <code>{w.url}</code>
                  <div class="muted">
                    {w.events ? w.events.join(", ") : "all events"}
                    {w.description && ` · ${w.description}`}
                  </div>
                </div>
                <div class="actions">
                  <button
                    type="button"
                    class="btn btn-small"
                    onClick={() => setShown(shown?.id === w.id ? undefined : w)}
                  >
                    {shown?.id === w.id ? "Hide deliveries" : "Deliveries"}
                  </button>
                  <button type="button" class="btn btn-small btn-ghost-danger" onClick={() => setDoomed(w)}>
                    Delete
                  </button>
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>
      {shown && <Deliveries pipelineId={pipeline.id} webhook={shown} />}
      {created && <WebhookSecretDialog created={created} onClose={() => setCreated(undefined)} />}
      {doomed && (
        <ConfirmDialog
          title="Delete this webhook?"
          confirmLabel="Delete webhook"
          busy={remove.busy}
          error={remove.error}
          onConfirm={() => void remove.run(doomed)}
          onCancel={() => setDoomed(undefined)}
        >
          <p>
            <code>{doomed.url}</code> stops receiving events, and its delivery log goes with it.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}

/** The delivery log of one webhook, refreshed every few seconds while shown. */
function Deliveries({ pipelineId, webhook }: { pipelineId: string; webhook: Webhook }) {
  const log = useLoad(() => webhooks.deliveries(pipelineId, webhook.id), [pipelineId, webhook.id]);
  usePoll(true, log.reload, 5000);
  return (
    <section aria-labelledby="log-h">
      <h2 id="log-h">Deliveries to {webhook.url}</h2>
      <ErrorNote error={log.error} context="Could not load the deliveries" />
      {!log.data && log.loading && <Loading />}
      {log.data && <DeliveryLog items={log.data} />}
    </section>
  );
}
