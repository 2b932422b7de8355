/** The one and only time the full key is shown: copy it now. */
import type { ApiKeyCreated } from "../api/types";
import { ClientConfigs } from "./ClientConfigs";
import { CopyButton } from "./CopyButton";
import { Dialog } from "./Dialog";

/** Shows the key in a read-only field with Copy, a warning, and client configurations that use it. */
export function KeyCreatedDialog({ created, onClose }: { created: ApiKeyCreated; onClose: () => void }) {
  return (
    <Dialog
      title={`Key “${created.name}” created`}
      onClose={onClose}
      actions={
        <button type="button" class="btn btn-primary" onClick={onClose}>
          I have stored it
        </button>
      }
    >
      <p class="note note-warn" role="alert">
        <strong>Copy this key now.</strong> ragd keeps only a hash of it and will never show it again. If you lose it,
        revoke it and create a new one.
      </p>
      <label for="new-key" class="label">
        Your new API key
      </label>
      <div class="copy-row">
        <input
          id="new-key"
          class="mono"
          readOnly
          value={created.key}
          onFocus={(e) => e.currentTarget.select()}
          autoFocus
          data-testid="new-key"
        />
        <CopyButton text={created.key} class="btn btn-primary" />
      </div>
      <ClientConfigs apiKey={created.key} />
    </Dialog>
  );
}
