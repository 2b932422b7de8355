/** The one and only time the full key is shown: copy it now. */
import type { ApiKeyCreated } from "../api/types";
import { rich, t } from "../i18n";
import { documentsExample } from "../lib/client-configs";
import { ClientConfigs } from "./ClientConfigs";
import { CopyButton } from "./CopyButton";
import { SecretOnceDialog } from "./SecretOnceDialog";

/** Shows the key in a read-only field with Copy, a warning, and client configurations that use it. */
export function KeyCreatedDialog({
  created,
  kbId,
  onClose,
}: {
  created: ApiKeyCreated;
  /** A knowledge base's key: its snippets search that knowledge base. */
  kbId?: string;
  onClose: () => void;
}) {
  return (
    <SecretOnceDialog
      title={t("keyCreated.title", { name: created.name })}
      warning={rich("keyCreated.warning", { now: <strong>{t("keyCreated.copyNow")}</strong> })}
      label={t("keyCreated.label")}
      id="new-key"
      testId="new-key"
      secret={created.key}
      onClose={onClose}
    >
      {created.tokenSecret && <TokenSecret id={created.id} secret={created.tokenSecret} />}
      {created.scopes.includes("query") ? (
        <ClientConfigs apiKey={created.key} kbId={kbId} />
      ) : (
        <IngestExample apiKey={created.key} />
      )}
    </SecretOnceDialog>
  );
}

/** A key with the tokens scope: the secret its tenant tokens are signed with, shown this once too. */
function TokenSecret({ id, secret }: { id: string; secret: string }) {
  return (
    <section class="client-configs" aria-labelledby="token-secret-h">
      <div class="section-head">
        <h3 id="token-secret-h">{t("keyCreated.tokenSecret")}</h3>
        <CopyButton text={secret} label={t("copy.copy")} class="btn btn-small" />
      </div>
      <p class="hint">{t("keyCreated.tokenHint", { id })}</p>
      <pre class="code" data-testid="token-secret">
        <code>{secret}</code>
      </pre>
    </section>
  );
}

/** An ingest-only key cannot query (403), so agents and retrievers are no use to it: show what it can do. */
function IngestExample({ apiKey }: { apiKey: string }) {
  const code = documentsExample(location.origin, apiKey);
  return (
    <section class="client-configs" aria-labelledby="ingest-example-h">
      <div class="section-head">
        <h3 id="ingest-example-h">{t("keyCreated.push")}</h3>
        <CopyButton text={code} label={t("copy.command")} class="btn btn-small" />
      </div>
      <p class="hint">{t("keyCreated.ingestHint")}</p>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
      {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: the label names the scrollable region */}
      <pre class="code" tabIndex={0} aria-label={t("keyCreated.example")} data-testid="ingest-example">
        <code>{code}</code>
      </pre>
    </section>
  );
}
