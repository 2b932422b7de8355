/** Deleting an account: says what goes with it, and asks for its email before it can go. */
import { useState } from "preact/hooks";
import type { ApiError } from "../api/client";
import type { AdminUser } from "../api/types";
import { plural } from "../lib/format";
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
      title={`Delete ${u.email}?`}
      confirmLabel="Delete user"
      busy={busy}
      disabled={!matches}
      error={error}
      onConfirm={() => matches && onConfirm(typed.trim())}
      onCancel={onCancel}
    >
      <p>This permanently removes the account {u.email} and everything it owns:</p>
      <ul>
        <li>
          {plural(u.pipelineCount, "pipeline")} and its knowledge bases, with {plural(u.chunkCount, "indexed chunk")}{" "}
          and every uploaded file,
        </li>
        <li>their API keys and webhooks, which stop at once,</li>
        <li>their sessions.</li>
      </ul>
      <label for="delete-user-confirm" class="label">
        Type <strong>{u.email}</strong> to confirm
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
