/** The one and only time a webhook's signing secret is shown: copy it now. */
import type { WebhookCreated } from "../api/types";
import { SecretOnceDialog } from "./SecretOnceDialog";

export function WebhookSecretDialog({ created, onClose }: { created: WebhookCreated; onClose: () => void }) {
  return (
    <SecretOnceDialog
      title="Webhook created"
      warning={
        <>
          <strong>Copy this secret now.</strong> It is shown only once. Your receiver checks each request with it: the{" "}
          <code>X-Ragd-Signature</code> header is <code>sha256=</code> and the hex HMAC-SHA256 of the raw body.
        </>
      }
      label="Signing secret"
      id="new-secret"
      testId="webhook-secret"
      secret={created.secret}
      onClose={onClose}
    />
  );
}
