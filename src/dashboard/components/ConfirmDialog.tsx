/** "Are you sure?" for destructive actions, naming exactly what goes away. */
import type { ComponentChildren } from "preact";
import type { ApiError } from "../api/client";
import { t } from "../i18n";
import { Dialog } from "./Dialog";
import { ErrorNote } from "./ErrorNote";

interface Props {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  busy?: boolean;
  /** The confirm button is inert (e.g. until a confirmation is typed). */
  disabled?: boolean;
  error?: ApiError;
  onConfirm: () => void;
  onCancel: () => void;
}

/** A danger dialog; focus starts on Cancel so Enter never destroys by accident. */
export function ConfirmDialog({ title, children, confirmLabel, busy, disabled, error, onConfirm, onCancel }: Props) {
  return (
    <Dialog
      title={title}
      onClose={onCancel}
      tone="danger"
      actions={
        <>
          {/* biome-ignore lint/a11y/noAutofocus: a destructive dialog opens on its safe choice */}
          <button type="button" class="btn" onClick={onCancel} autoFocus>
            {t("common.cancel")}
          </button>
          <button type="button" class="btn btn-danger" onClick={onConfirm} disabled={busy || disabled}>
            {busy ? t("common.working") : confirmLabel}
          </button>
        </>
      }
    >
      {children}
      <ErrorNote error={error} />
    </Dialog>
  );
}
