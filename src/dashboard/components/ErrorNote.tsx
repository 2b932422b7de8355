/** Shows what the API said went wrong, next to the thing that caused it. */
import type { ApiError } from "../api/client";
import { t } from "../i18n";

interface Props {
  error: ApiError | undefined;
  /** What the user was doing, e.g. "Could not create the key". */
  context?: string;
}

/** An inline error message (role=alert, so screen readers announce it). */
export function ErrorNote({ error, context }: Props) {
  if (!error) return null;
  return (
    <div class="note note-error" role="alert">
      {context && <strong>{t("error.context", { context })} </strong>}
      {error.message}
      {error.code === "rate_limited" && ` ${t("error.rateLimited")}`}
    </div>
  );
}
