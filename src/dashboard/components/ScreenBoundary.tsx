/**
 * Catches a rendering error in one screen, so a bug shows as a message with a
 * way out instead of a blank page; the header and navigation keep working.
 */
import type { ComponentChildren } from "preact";
import { useErrorBoundary } from "preact/hooks";
import { t } from "../i18n";

/** Renders its children, or the error they threw. */
export function ScreenBoundary({ children }: { children: ComponentChildren }) {
  const [error, reset] = useErrorBoundary();
  if (!error) return <>{children}</>;
  return (
    <div class="note note-error" role="alert">
      <strong>{t("boundary.failed")} </strong>
      {error instanceof Error ? error.message : String(error)}.{" "}
      <button type="button" class="btn btn-small" onClick={reset}>
        {t("common.tryAgain")}
      </button>{" "}
      <a href="#/pipelines">{t("common.toPipelines")}</a>
    </div>
  );
}
