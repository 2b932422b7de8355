/** Shows what the API said went wrong, next to the thing that caused it. */
import type { ApiError } from "../api/client";
import { isMissingRoute } from "../api/client";

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
      {isMissingRoute(error)
        ? "this ragd server does not offer this yet (it answered “no such route”)."
        : error.message}
      {error.code === "rate_limited" && " Wait a moment and try again."}
    </div>
  );
}

/** Shown instead of a feature whose endpoint this server does not have yet. */
export function NotAvailable({ feature, error }: { feature: string; error?: ApiError }) {
  return (
    <div class="note note-info" role="status">
      <strong>{feature} are not available on this ragd server yet.</strong> The endpoint answered “
      {error && isMissingRoute(error) ? error.message : "not found"}”. This page will work as soon as the server offers
      it; nothing is lost meanwhile.
    </div>
  );
}
