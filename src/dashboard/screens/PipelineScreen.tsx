/**
 * One pipeline: its header (status, settings at a glance) and six tabs:
 * Sources, API keys, Playground, Quality, Webhooks and Settings. Each tab has its own URL.
 */
import { pipelines } from "../api/endpoints";
import type { PipelineDetail } from "../api/types";
import { EmptyState, Loading } from "../components/EmptyState";
import { ErrorNote } from "../components/ErrorNote";
import { StatusBadge } from "../components/StatusBadge";
import { formatNumber, plural } from "../lib/format";
import { useLoad, usePoll, useTitle } from "../lib/hooks";
import { KeysPanel } from "./KeysPanel";
import { PlaygroundPanel } from "./PlaygroundPanel";
import { QualityPanel } from "./QualityPanel";
import { SettingsPanel } from "./SettingsPanel";
import { SourcesPanel } from "./SourcesPanel";
import { WebhooksPanel } from "./WebhooksPanel";

const TABS: [string, string][] = [
  ["sources", "Sources"],
  ["keys", "API keys"],
  ["playground", "Playground"],
  ["quality", "Quality"],
  ["webhooks", "Webhooks"],
  ["settings", "Settings"],
];

/** The pipeline page; `tab` and `query` come from the URL. */
export function PipelineScreen({ id, tab, query }: { id: string; tab: string; query: URLSearchParams }) {
  const p = useLoad(() => pipelines.get(id), [id]);
  // The Sources tab re-reads the header itself when its counts change.
  usePoll(p.data?.status === "processing" && tab !== "sources", p.reload, 2000);
  useTitle(p.data?.name ?? "Pipeline");

  if (p.error?.status === 404 && !p.data) {
    return (
      <EmptyState
        title="This pipeline is not here"
        action={
          <a class="btn btn-primary" href="#/pipelines">
            Back to your pipelines
          </a>
        }
      >
        It may have been deleted, or it belongs to another account.
      </EmptyState>
    );
  }
  if (!p.data) return p.error ? <ErrorNote error={p.error} context="Could not load the pipeline" /> : <Loading />;
  const pipeline = p.data;
  const base = `#/pipelines/${encodeURIComponent(id)}`;

  return (
    <>
      <nav class="crumbs" aria-label="Breadcrumb">
        <a href="#/pipelines">Pipelines</a> <span aria-hidden="true">/</span>{" "}
        <span aria-current="page">{pipeline.name}</span>
      </nav>
      <PipelineHeader pipeline={pipeline} />
      <nav class="tabs" aria-label="Pipeline sections">
        {TABS.map(([key, label]) => (
          <a href={`${base}/${key}`} aria-current={tab === key ? "page" : undefined}>
            {label}
          </a>
        ))}
      </nav>
      <ErrorNote error={p.error} context="Could not refresh the pipeline" />
      {tab === "sources" && <SourcesPanel pipeline={pipeline} query={query} onChange={p.reload} />}
      {tab === "keys" && <KeysPanel pipeline={pipeline} />}
      {tab === "playground" && <PlaygroundPanel pipeline={pipeline} />}
      {tab === "quality" && <QualityPanel pipeline={pipeline} />}
      {tab === "webhooks" && <WebhooksPanel pipeline={pipeline} />}
      {tab === "settings" && <SettingsPanel pipeline={pipeline} onSaved={p.reload} />}
      {!TABS.some(([k]) => k === tab) && <p class="muted">Unknown section. Pick one of the tabs above.</p>}
    </>
  );
}

/** Name, status and the settings that matter at a glance. */
function PipelineHeader({ pipeline: p }: { pipeline: PipelineDetail }) {
  const unit = p.chunkingStrategy === "token" ? "tokens" : "chars";
  return (
    <div class="page-head">
      <div>
        <h1>
          {p.name} <StatusBadge status={p.status} />
        </h1>
        {p.description && <p class="muted">{p.description}</p>}
        <ul class="chips" aria-label="Settings">
          <li>
            <span class="muted">Model</span> <code>{p.embeddingModel}</code>
          </li>
          <li>
            <span class="muted">Chunks</span> {p.chunkingStrategy}, {formatNumber(p.chunkSize)} {unit} / overlap{" "}
            {formatNumber(p.chunkOverlap)}
          </li>
          <li>
            <span class="muted">Top-K</span> {p.retrievalTopK}
          </li>
          <li>
            {plural(p.sourceCount, "source")} · {plural(p.chunkCount, "chunk")}
          </li>
        </ul>
      </div>
    </div>
  );
}
