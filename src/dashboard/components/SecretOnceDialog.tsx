/** A secret the server shows only once (an API key, a webhook's signing secret): copy it now. */
import type { ComponentChildren } from "preact";
import { t } from "../i18n";
import { CopyButton } from "./CopyButton";
import { Dialog } from "./Dialog";

interface Props {
  title: string;
  /** Why it must be copied now, shown as a warning above the field. */
  warning: ComponentChildren;
  /** The field's label and id, and the test id of the read-only input. */
  label: string;
  id: string;
  testId: string;
  secret: string;
  onClose: () => void;
  /** Shown below the field (e.g. client configurations that use the key). */
  children?: ComponentChildren;
}

/** The secret in a read-only, pre-selected field with Copy, and one button to close. */
export function SecretOnceDialog({ title, warning, label, id, testId, secret, onClose, children }: Props) {
  return (
    <Dialog
      title={title}
      onClose={onClose}
      actions={
        <button type="button" class="btn btn-primary" onClick={onClose}>
          {t("secret.stored")}
        </button>
      }
    >
      <p class="note note-warn" role="alert">
        {warning}
      </p>
      <label for={id} class="label">
        {label}
      </label>
      <div class="copy-row">
        <input
          id={id}
          class="mono"
          readOnly
          value={secret}
          onFocus={(e) => e.currentTarget.select()}
          autoFocus
          data-testid={testId}
        />
        <CopyButton text={secret} class="btn btn-primary" />
      </div>
      {children}
    </Dialog>
  );
}
