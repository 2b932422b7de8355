/** The one and only time the full key is shown: copy it now. */
import type { ApiKeyCreated } from "../api/types";
import { documentsExample } from "../lib/client-configs";
import { ClientConfigs } from "./ClientConfigs";
import { CopyButton } from "./CopyButton";
import { SecretOnceDialog } from "./SecretOnceDialog";

/** Shows the key in a read-only field with Copy, a warning, and client configurations that use it. */
export function KeyCreatedDialog({ created, onClose }: { created: ApiKeyCreated; onClose: () => void }) {
  return (
    <SecretOnceDialog
      title={`Key “${created.name}” created`}
      warning={
        <>
          <strong>Copy this key now.</strong> ragd keeps only a hash of it and will never show it again. If you lose it,
          revoke it and create a new one.
        </>
      }
      label="Your new API key"
      id="new-key"
      testId="new-key"
      secret={created.key}
      onClose={onClose}
    >
      {created.scopes.includes("query") ? (
        <ClientConfigs apiKey={created.key} />
      ) : (
        <IngestExample apiKey={created.key} />
      )}
    </SecretOnceDialog>
  );
}

/** An ingest-only key cannot query (403), so agents and retrievers are no use to it: show what it can do. */
function IngestExample({ apiKey }: { apiKey: string }) {
  const code = documentsExample(location.origin, apiKey);
  return (
    <section class="client-configs" aria-labelledby="ingest-example-h">
      <div class="section-head">
        <h3 id="ingest-example-h">Push documents</h3>
        <CopyButton text={code} label="Copy command" class="btn btn-small" />
      </div>
      <p class="hint">
        This key can add and replace documents but cannot query; for agents and retrievers, create a key with the query
        scope. Each document has your own ID: a PUT creates it or replaces it.
      </p>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
      {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: the label names the scrollable region */}
      <pre class="code" tabIndex={0} aria-label="Documents API example" data-testid="ingest-example">
        <code>{code}</code>
      </pre>
    </section>
  );
}
