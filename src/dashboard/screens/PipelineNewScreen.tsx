/** "New pipeline": the settings form, and a clear word when the tier is full. */
import { pipelines } from "../api/endpoints";
import { DEFAULT_CONFIG, PipelineForm } from "../components/PipelineForm";
import { TierLimitNote } from "../components/TierLimitNote";
import { useAction, useLoad, useTitle } from "../lib/hooks";
import { pipelineLimit, useApp } from "../lib/session";
import { navigate } from "../router";
import type { PipelineConfig } from "../api/types";

/** Creates a pipeline and opens it. */
export function PipelineNewScreen() {
  useTitle("New pipeline");
  const { notify, user } = useApp();
  const owned = useLoad(() => pipelines.list({ page: 1, pageSize: 1 }), []);
  const limit = pipelineLimit(user);
  const full = limit !== null && (owned.data?.total ?? 0) >= limit;
  const create = useAction(async (c: PipelineConfig) => {
    const p = await pipelines.create(c);
    notify(`Pipeline “${p.name}” created.`);
    navigate(`/pipelines/${encodeURIComponent(p.id)}`);
  });
  const tierFull = create.error?.code === "tier_limit_reached";

  return (
    <>
      <nav class="crumbs" aria-label="Breadcrumb">
        <a href="#/pipelines">Pipelines</a> <span aria-hidden="true">/</span> <span aria-current="page">New</span>
      </nav>
      <div class="page-head">
        <div>
          <h1>New pipeline</h1>
          <p class="muted">The defaults suit most text. Everything except the name can be changed later.</p>
        </div>
      </div>
      {full && !tierFull && (
        <p class="note note-info">
          You already have {owned.data?.total} of the {limit} pipeline{limit === 1 ? "" : "s"} your {user.tier} tier
          allows, so ragd will refuse another. <a href="#/pipelines">Delete one</a> first, or ask an administrator for a
          higher tier.
        </p>
      )}
      <div class="card">
        <PipelineForm
          initial={DEFAULT_CONFIG}
          submitLabel="Create pipeline"
          busy={create.busy}
          error={tierFull ? undefined : create.error}
          onSubmit={(c) => void create.run(c)}
          footer={tierFull && <TierLimitNote message={create.error!.message} />}
        />
      </div>
    </>
  );
}
