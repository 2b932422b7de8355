/** The page for a route the dashboard does not know. */
import { EmptyState } from "../components/EmptyState";
import { useTitle } from "../lib/hooks";

/** Points back to the pipelines. */
export function NotFoundScreen() {
  useTitle("Not found");
  return (
    <EmptyState
      title="There is nothing at this address"
      action={
        <a class="btn btn-primary" href="#/pipelines">
          Go to your pipelines
        </a>
      }
    >
      The link may be old, or the thing it pointed to was deleted.
    </EmptyState>
  );
}
