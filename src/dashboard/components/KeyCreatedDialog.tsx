/** The one and only time the full key is shown: copy it now. */
import type { ApiKeyCreated } from "../api/types";
import { ClientConfigs } from "./ClientConfigs";
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
      <ClientConfigs apiKey={created.key} />
    </SecretOnceDialog>
  );
}
