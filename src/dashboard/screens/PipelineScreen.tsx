/**
 * One pipeline: its header (status, settings at a glance) and seven tabs:
 * Sources, API keys, Playground, Quality, Insight, Webhooks and Settings. Each tab has its own URL.
 */
import { pipelines } from "../api/endpoints";
import type { PipelineDetail } from "../api/types";
import { EmptyState, Loading } from "../components/EmptyState";
import { ErrorNote } from "../components/ErrorNote";
import { StatusBadge } from "../components/StatusBadge";
import { type Key, t } from "../i18n";
import { formatNumber } from "../lib/format";
import { useLoad, usePoll, useTitle } from "../lib/hooks";
import { InsightPanel } from "./InsightPanel";
import { KeysPanel } from "./KeysPanel";
import { PlaygroundPanel } from "./PlaygroundPanel";
import { QualityPanel } from "./QualityPanel";
import { SettingsPanel } from "./SettingsPanel";
import { SourcesPanel } from "./SourcesPanel";
import { WebhooksPanel } from "./WebhooksPanel";

const TABS: [string, Key][] = [
  ["sources", "tabs.sources"],
  ["keys", "tabs.keys"],
  ["playground", "tabs.playground"],
  ["quality", "tabs.quality"],
  ["insight", "tabs.insight"],
  ["webhooks", "tabs.webhooks"],
  ["settings", "tabs.settings"],
];

/** The pipeline page; `tab` and `query` come from the URL. */
export function PipelineScreen({ id, tab, query }: { id: string; tab: string; query: URLSearchParams }) {
  const p = useLoad(() => pipelines.get(id), [id]);
  // The Sources tab re-reads the header itself when its counts change.
  usePoll(p.data?.status === "processing" && tab !== "sources", p.reload, 2000);
  useTitle(p.data?.name ?? t("pipeline.title"));

  if (p.error?.status === 404 && !p.data) {
    return (
      <EmptyState
        title={t("pipeline.notHere")}
        action={
          <a class="btn btn-primary" href="#/pipelines">
            {t("pipeline.back")}
          </a>
        }
      >
        {t("pipeline.notHereText")}
      </EmptyState>
    );
  }
  if (!p.data) return p.error ? <ErrorNote error={p.error} context={t("pipeline.loadFailed")} /> : <Loading />;
  const pipeline = p.data;
  const base = `#/pipelines/${encodeURIComponent(id)}`;

  return (
    <>
      <nav class="crumbs" aria-label={t("common.breadcrumb")}>
        <a href="#/pipelines">{t("shell.pipelines")}</a> <span aria-hidden="true">/</span>{" "}
        <span aria-current="page">{pipeline.name}</span>
      </nav>
      <PipelineHeader pipeline={pipeline} />
      <nav class="tabs" aria-label={t("pipeline.sections")}>
        {TABS.map(([key, label]) => (
          <a href={`${base}/${key}`} aria-current={tab === key ? "page" : undefined}>
            {t(label)}
          </a>
        ))}
      </nav>
      <ErrorNote error={p.error} context={t("pipeline.refreshFailed")} />
      {tab === "sources" && <SourcesPanel pipeline={pipeline} query={query} onChange={p.reload} />}
      {tab === "keys" && <KeysPanel owner={{ kind: "pipeline", id: pipeline.id }} />}
      {tab === "playground" && <PlaygroundPanel pipeline={pipeline} />}
      {tab === "quality" && <QualityPanel pipeline={pipeline} />}
      {tab === "insight" && <InsightPanel pipeline={pipeline} />}
      {tab === "webhooks" && <WebhooksPanel pipeline={pipeline} />}
      {tab === "settings" && <SettingsPanel pipeline={pipeline} onSaved={p.reload} />}
      {!TABS.some(([k]) => k === tab) && <p class="muted">{t("pipeline.unknownTab")}</p>}
    </>
  );
}

/** Name, status and the settings that matter at a glance. */
function PipelineHeader({ pipeline: p }: { pipeline: PipelineDetail }) {
  const size = { size: formatNumber(p.chunkSize), overlap: formatNumber(p.chunkOverlap) };
  const sizes = p.chunkingStrategy === "token" ? t("pipeline.tokenSizes", size) : t("pipeline.charSizes", size);
  return (
    <div class="page-head">
      <div>
        <h1>
          {p.name} <StatusBadge status={p.status} />
        </h1>
        {p.description && <p class="muted">{p.description}</p>}
        <ul class="chips" aria-label={t("tabs.settings")}>
          <li>
            <span class="muted">{t("pipelineTable.modelShort")}</span> <code>{p.embeddingModel}</code>
          </li>
          <li>
            <span class="muted">{t("pipelineTable.chunks")}</span> {p.chunkingStrategy}, {sizes}
          </li>
          <li>
            <span class="muted">{t("search.topK")}</span> {formatNumber(p.retrievalTopK)}
          </li>
          <li>
            {t("count.sources", { count: p.sourceCount })} · {t("count.chunks", { count: p.chunkCount })}
          </li>
        </ul>
      </div>
    </div>
  );
}
