/** "New pipeline": the settings form, and a clear word when the tier is full. */
import { pipelines } from "../api/endpoints";
import { DEFAULT_CONFIG, PipelineForm } from "../components/PipelineForm";
import { TIER_NAMES } from "../components/TierBadge";
import { TierLimitNote } from "../components/TierLimitNote";
import { rich, t } from "../i18n";
import { useAction, useLoad, useTitle } from "../lib/hooks";
import { pipelineLimit, useApp } from "../lib/session";
import { navigate } from "../router";
import type { PipelineConfig } from "../api/types";

/** Creates a pipeline and opens it. */
export function PipelineNewScreen() {
  useTitle(t("pipelines.new"));
  const { notify, user } = useApp();
  const owned = useLoad(() => pipelines.list({ page: 1, pageSize: 1 }), []);
  const limit = pipelineLimit(user);
  const full = limit !== null && (owned.data?.total ?? 0) >= limit;
  const create = useAction(async ({ embeddingModel, ...c }: PipelineConfig) => {
    // No model yet (the picker had not read the server's list): the server's default.
    const p = await pipelines.create(embeddingModel ? { ...c, embeddingModel } : c);
    notify(t("newPipeline.created", { name: p.name }));
    navigate(`/pipelines/${encodeURIComponent(p.id)}`);
  });
  const tierFull = create.error?.code === "tier_limit_reached";

  return (
    <>
      <nav class="crumbs" aria-label={t("common.breadcrumb")}>
        <a href="#/pipelines">{t("shell.pipelines")}</a> <span aria-hidden="true">/</span>{" "}
        <span aria-current="page">{t("newPipeline.crumb")}</span>
      </nav>
      <div class="page-head">
        <div>
          <h1>{t("pipelines.new")}</h1>
          <p class="muted">{t("newPipeline.intro")}</p>
        </div>
      </div>
      {full && !tierFull && (
        <p class="note note-info">
          {rich("newPipeline.full", {
            owned: owned.data?.total ?? 0,
            count: limit,
            tier: t(TIER_NAMES[user.tier]),
            link: <a href="#/pipelines">{t("newPipeline.deleteOne")}</a>,
          })}
        </p>
      )}
      <div class="card">
        <PipelineForm
          initial={DEFAULT_CONFIG}
          submitLabel={t("newPipeline.create")}
          busy={create.busy}
          error={tierFull ? undefined : create.error}
          onSubmit={(c) => void create.run(c)}
          footer={tierFull && <TierLimitNote message={create.error!.message} />}
        />
      </div>
    </>
  );
}
