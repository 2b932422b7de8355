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
import { rich, t } from "../i18n";
import { useAction, useLoad, usePoll } from "../lib/hooks";
import { useApp } from "../lib/session";

const SUBSCRIBABLE = EVENT_TYPES.filter((e) => e !== "stream.reset");

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
    notify(t("webhooks.deleted"));
    await list.reload();
  });
  const toggle = (type: string, on: boolean) => setEvents((e) => (on ? [...e, type] : e.filter((x) => x !== type)));

  return (
    <div class="stack">
      <section class="card" aria-labelledby="new-hook-h">
        <h2 id="new-hook-h">{t("webhooks.add")}</h2>
        <p class="muted">{t("webhooks.intro")}</p>
        <form class="stack" onSubmit={(e) => (e.preventDefault(), void create.run())}>
          <Field label={t("webhooks.url")} hint={t("webhooks.urlHint")} error={fieldError(create.error, "url")}>
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
          <Field
            label={t("common.description")}
            hint={t("common.optional")}
            error={fieldError(create.error, "description")}
          >
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
            <legend class="label">{t("webhooks.events")}</legend>
            {SUBSCRIBABLE.map((type) => (
              <label class="check" key={type}>
                <input
                  type="checkbox"
                  checked={events.includes(type)}
                  onChange={(e) => toggle(type, e.currentTarget.checked)}
                />
                <code>{type}</code>
              </label>
            ))}
          </fieldset>
          <div>
            <button type="submit" class="btn btn-primary" disabled={create.busy || !url.trim()}>
              {create.busy ? t("addSource.adding") : t("webhooks.addButton")}
            </button>
          </div>
        </form>
        <ErrorNote error={create.error} context={t("webhooks.addFailed")} />
      </section>
      <section aria-labelledby="hooks-h">
        <h2 id="hooks-h">{t("tabs.webhooks")}</h2>
        <ErrorNote error={list.error} context={t("webhooks.loadFailed")} />
        {!list.data && list.loading && <Loading />}
        {list.data?.length === 0 && <EmptyState title={t("webhooks.none")}>{t("webhooks.noneText")}</EmptyState>}
        {list.data && list.data.length > 0 && (
          <ul class="rows" aria-label={t("tabs.webhooks")}>
            {list.data.map((w) => (
              <li key={w.id} class="row">
                <div>
                  <code>{w.url}</code>
                  <div class="muted">
                    {w.events ? w.events.join(", ") : t("webhooks.allEvents")}
                    {w.description && ` · ${w.description}`}
                  </div>
                </div>
                <div class="actions">
                  <button
                    type="button"
                    class="btn btn-small"
                    onClick={() => setShown(shown?.id === w.id ? undefined : w)}
                  >
                    {shown?.id === w.id ? t("webhooks.hideDeliveries") : t("deliveries.caption")}
                  </button>
                  <button type="button" class="btn btn-small btn-ghost-danger" onClick={() => setDoomed(w)}>
                    {t("common.delete")}
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
          title={t("webhooks.deleteTitle")}
          confirmLabel={t("webhooks.deleteWebhook")}
          busy={remove.busy}
          error={remove.error}
          onConfirm={() => void remove.run(doomed)}
          onCancel={() => setDoomed(undefined)}
        >
          <p>{rich("webhooks.deleteText", { url: <code>{doomed.url}</code> })}</p>
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
      <h2 id="log-h">{t("webhooks.deliveriesTo", { url: webhook.url })}</h2>
      <ErrorNote error={log.error} context={t("webhooks.deliveriesFailed")} />
      {!log.data && log.loading && <Loading />}
      {log.data && <DeliveryLog items={log.data} />}
    </section>
  );
}
