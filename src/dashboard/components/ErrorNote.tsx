/** Shows what the API said went wrong, next to the thing that caused it. */
import type { ApiError } from "../api/client";

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
      {context && <strong>{context}: </strong>}
      {error.message}
      {error.code === "rate_limited" && " Wait a moment and try again."}
    </div>
  );
}
