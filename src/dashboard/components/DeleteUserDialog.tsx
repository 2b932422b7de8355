/** Deleting an account: says what goes with it, and asks for its email before it can go. */
import { useState } from "preact/hooks";
import type { ApiError } from "../api/client";
import type { AdminUser } from "../api/types";
import { rich, t } from "../i18n";
import { ConfirmDialog } from "./ConfirmDialog";

interface Props {
  user: AdminUser;
  busy: boolean;
  error?: ApiError;
  onConfirm: (typed: string) => void;
  onCancel: () => void;
}

/** The Delete button stays inert until the account's email is typed (ignoring case). */
export function DeleteUserDialog({ user: u, busy, error, onConfirm, onCancel }: Props) {
  const [typed, setTyped] = useState("");
  const matches = typed.trim().toLowerCase() === u.email.toLowerCase();
  return (
    <ConfirmDialog
      title={t("deleteUser.title", { email: u.email })}
      confirmLabel={t("deleteUser.confirm")}
      busy={busy}
      disabled={!matches}
      error={error}
      onConfirm={() => matches && onConfirm(typed.trim())}
      onCancel={onCancel}
    >
      <p>{t("deleteUser.removes", { email: u.email })}</p>
      <ul>
        <li>
          {t("deleteUser.itemData", {
            pipelines: t("count.pipelines", { count: u.pipelineCount }),
            chunks: t("count.indexedChunks", { count: u.chunkCount }),
          })}
        </li>
        <li>{t("deleteUser.itemKeys")}</li>
        <li>{t("deleteUser.itemSessions")}</li>
      </ul>
      <label for="delete-user-confirm" class="label">
        {rich("deleteUser.type", { email: <strong>{u.email}</strong> })}
      </label>
      <input
        id="delete-user-confirm"
        autoComplete="off"
        value={typed}
        onInput={(e) => setTyped(e.currentTarget.value)}
      />
    </ConfirmDialog>
  );
}
