/** The one and only time a webhook's signing secret is shown: copy it now. */
import type { WebhookCreated } from "../api/types";
import { CopyButton } from "./CopyButton";
import { Dialog } from "./Dialog";

export function WebhookSecretDialog({ created, onClose }: { created: WebhookCreated; onClose: () => void }) {
  return (
    <Dialog
      title="Webhook created"
      onClose={onClose}
      actions={
        <button type="button" class="btn btn-primary" onClick={onClose}>
          I have stored it
        </button>
      }
    >
      <p class="note note-warn" role="alert">
        <strong>Copy this secret now.</strong> It is shown only once. Your receiver checks each request with it: the{" "}
        <code>X-Ragd-Signature</code> header is <code>sha256=</code> and the hex HMAC-SHA256 of the raw body.
      </p>
      <label for="new-secret" class="label">
        Signing secret
      </label>
      <div class="copy-row">
        <input
          id="new-secret"
          class="mono"
          readOnly
          value={created.secret}
          onFocus={(e) => e.currentTarget.select()}
          autoFocus
          data-testid="webhook-secret"
        />
        <CopyButton text={created.secret} class="btn btn-primary" />
      </div>
    </Dialog>
  );
}
