/**
 * The signed-in frame: a skip link, the header with navigation and the user, and
 * the screen for the current route. Moving to another page moves focus to the
 * main region, so screen readers start reading the new page.
 */
import { useEffect, useRef } from "preact/hooks";
import { LanguageSwitch } from "../components/LanguageSwitch";
import { Logo } from "../components/Logo";
import { ScreenBoundary } from "../components/ScreenBoundary";
import { AccountBadge } from "../components/TierBadge";
import { rich, t } from "../i18n";
import { useApp } from "../lib/session";
import { navigate, type Route } from "../router";
import { AccountScreen } from "./AccountScreen";
import { AdminScreen } from "./AdminScreen";
import { KbListScreen } from "./KbListScreen";
import { KbScreen } from "./KbScreen";
import { NotFoundScreen } from "./NotFoundScreen";
import { PipelineNewScreen } from "./PipelineNewScreen";
import { PipelineScreen } from "./PipelineScreen";
import { PipelinesScreen } from "./PipelinesScreen";
import { SourceScreen } from "./SourceScreen";

/** Picks the screen for a route. */
function screenFor(route: Route, isAdmin: boolean) {
  const [first, second, third, fourth] = route.segments;
  if (first === "pipelines" && second === "new") return <PipelineNewScreen />;
  if (first === "pipelines" && second && third === "sources" && fourth)
    return <SourceScreen pipelineId={second} sourceId={fourth} query={route.query} />;
  if (first === "pipelines" && second)
    return <PipelineScreen id={second} tab={third ?? "sources"} query={route.query} />;
  if (first === "pipelines") return <PipelinesScreen query={route.query} />;
  if (first === "kb" && second) return <KbScreen id={second} />;
  if (first === "kb") return <KbListScreen />;
  if (first === "account") return <AccountScreen />;
  // Not for other users: for them the route does not exist (and the API answers 403).
  if (first === "admin" && isAdmin) return <AdminScreen />;
  return <NotFoundScreen />;
}

/** The header, navigation and routed content. */
export function Shell({ route }: { route: Route }) {
  const { user, signOut } = useApp();
  const main = useRef<HTMLElement>(null);
  const first = route.segments[0];
  const pathKey = route.segments.join("/");

  useEffect(() => {
    if (!first || first === "signin" || first === "signup") navigate("/pipelines", true);
  }, [first]);
  // Not on the first render: a fresh page load keeps the browser's own focus start.
  const seen = useRef(pathKey);
  useEffect(() => {
    if (seen.current === pathKey) return;
    seen.current = pathKey;
    main.current?.focus({ preventScroll: true });
    scrollTo(0, 0);
  }, [pathKey]);

  return (
    <>
      {/* biome-ignore lint/a11y/useValidAnchor: a skip link is a real anchor; the handler also moves focus */}
      <a class="skip-link" href="#main" onClick={(e) => (e.preventDefault(), main.current?.focus())}>
        {t("shell.skip")}
      </a>
      <header class="topbar">
        <div class="topbar-inner">
          <a href="#/pipelines" class="brand" aria-label={t("shell.home")}>
            <Logo small />
          </a>
          <nav class="mainnav" aria-label={t("shell.nav")}>
            <a href="#/pipelines" aria-current={first === "pipelines" ? "page" : undefined}>
              {t("shell.pipelines")}
            </a>
            <a href="#/kb" aria-current={first === "kb" ? "page" : undefined}>
              {t("shell.kb")}
            </a>
            {user.isAdmin && (
              <a href="#/admin" aria-current={first === "admin" ? "page" : undefined}>
                {t("shell.admin")}
              </a>
            )}
            <a href="/docs">{t("common.apiDocs")}</a>
          </nav>
          <div class="whoami">
            <LanguageSwitch />
            <a href="#/account" class="whoami-link" aria-current={first === "account" ? "page" : undefined}>
              <span class="whoami-email">{user.email}</span>
              <AccountBadge user={user} />
            </a>
            <button type="button" class="btn btn-ghost btn-small" onClick={() => void signOut()}>
              {t("shell.signOut")}
            </button>
          </div>
        </div>
      </header>
      <main id="main" class="container" tabIndex={-1} ref={main}>
        {user.mustChangePassword && first !== "account" && (
          <p class="note note-warn" role="alert">
            {rich("shell.mustChange", { link: <a href="#/account">{t("shell.mustChangeLink")}</a> })}
          </p>
        )}
        <ScreenBoundary key={pathKey}>{screenFor(route, user.isAdmin)}</ScreenBoundary>
      </main>
    </>
  );
}
