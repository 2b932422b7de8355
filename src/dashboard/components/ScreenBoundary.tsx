/**
 * Catches a rendering error in one screen, so a bug shows as a message with a
 * way out instead of a blank page; the header and navigation keep working.
 */
import type { ComponentChildren } from "preact";
import { useErrorBoundary } from "preact/hooks";

/** Renders its children, or the error they threw. */
export function ScreenBoundary({ children }: { children: ComponentChildren }) {
  const [error, reset] = useErrorBoundary();
  if (!error) return <>{children}</>;
  return (
    <div class="note note-error" role="alert">
      <strong>This page failed to show: </strong>
      {error instanceof Error ? error.message : String(error)}.{" "}
      <button type="button" class="btn btn-small" onClick={reset}>
        Try again
      </button>{" "}
      <a href="#/pipelines">Go to your pipelines</a>
    </div>
  );
}
