/** The one and only time a webhook's signing secret is shown: copy it now. */
import type { WebhookCreated } from "../api/types";
import { rich, t } from "../i18n";
import { SecretOnceDialog } from "./SecretOnceDialog";

export function WebhookSecretDialog({ created, onClose }: { created: WebhookCreated; onClose: () => void }) {
  return (
    <SecretOnceDialog
      title={t("webhookSecret.title")}
      warning={rich("webhookSecret.warning", {
        now: <strong>{t("webhookSecret.copyNow")}</strong>,
        header: <code>X-Ragd-Signature</code>,
        prefix: <code>sha256=</code>,
      })}
      label={t("webhookSecret.label")}
      id="new-secret"
      testId="webhook-secret"
      secret={created.secret}
      onClose={onClose}
    />
  );
}
