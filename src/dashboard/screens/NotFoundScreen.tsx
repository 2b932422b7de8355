/** The page for a route the dashboard does not know. */
import { EmptyState } from "../components/EmptyState";
import { t } from "../i18n";
import { useTitle } from "../lib/hooks";

/** Points back to the pipelines. */
export function NotFoundScreen() {
  useTitle(t("notFound.title"));
  return (
    <EmptyState
      title={t("notFound.heading")}
      action={
        <a class="btn btn-primary" href="#/pipelines">
          {t("common.toPipelines")}
        </a>
      }
    >
      {t("notFound.text")}
    </EmptyState>
  );
}
