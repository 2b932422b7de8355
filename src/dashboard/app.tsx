/**
 * The dashboard root: finds out who is signed in, then shows either the sign-in
 * screen or the shell with the routed screen. A 401 from any session endpoint
 * brings the user back to sign-in with a word about why.
 */
import { Fragment } from "preact";
import { useEffect, useState } from "preact/hooks";
import { setUnauthenticatedHandler } from "./api/client";
import { auth } from "./api/endpoints";
import type { User } from "./api/types";
import { Loading } from "./components/EmptyState";
import { type Key, t, useLocale } from "./i18n";
import { Toast, useToast } from "./components/Toast";
import { AppContext } from "./lib/session";
import { useRoute } from "./router";
import { AuthScreen } from "./screens/AuthScreen";
import { InviteScreen } from "./screens/InviteScreen";
import { Shell } from "./screens/Shell";

type Session = { state: "loading" } | { state: "out"; reason?: Key } | { state: "in"; user: User };

/** The whole app. */
export function App() {
  const [session, setSession] = useState<Session>({ state: "loading" });
  const route = useRoute();
  const toast = useToast();
  // A new language re-mounts the screens below, so every word is asked for again.
  const lang = useLocale();

  useEffect(() => {
    setUnauthenticatedHandler(() => setSession({ state: "out", reason: "app.sessionEnded" }));
    auth.me().then(
      ({ user }) => setSession({ state: "in", user }),
      () => setSession({ state: "out" }),
    );
  }, []);

  // Who the user is can change on the server (an administrator raises the tier):
  // ask again on every move to another page. A 401 here ends the session as usual.
  const path = route.segments.join("/");
  useEffect(() => {
    if (session.state !== "in") return;
    auth.me().then(
      ({ user }) => setSession((s) => (s.state === "in" ? { state: "in", user } : s)),
      (e: { status?: number }) => {
        if (e.status === 401) setSession({ state: "out", reason: "app.sessionEnded" });
      },
    );
  }, [path]);

  const signOut = async () => {
    await auth.logout().catch(() => undefined);
    setSession({ state: "out", reason: "app.signedOut" });
    location.hash = "#/";
  };

  if (session.state === "loading") return <Loading label={t("app.starting")} />;
  // An invitation's link works signed in or out: accepting it signs in as the new account.
  if (route.segments[0] === "invite" && route.segments[1]) {
    return (
      <Fragment key={lang}>
        <InviteScreen
          token={route.segments[1]}
          onSignedIn={(user) => {
            setSession({ state: "in", user });
            location.hash = "#/pipelines";
          }}
        />
        <Toast message={toast.message} />
      </Fragment>
    );
  }
  if (session.state === "out") {
    return (
      <Fragment key={lang}>
        <AuthScreen
          mode={route.segments[0] === "signup" ? "signup" : "signin"}
          notice={session.reason && t(session.reason)}
          onSignedIn={(user) => {
            setSession({ state: "in", user });
            if (route.segments[0] === "signup" || route.segments[0] === "signin") location.hash = "#/pipelines";
          }}
        />
        <Toast message={toast.message} />
      </Fragment>
    );
  }
  return (
    <AppContext.Provider
      value={{ user: session.user, notify: toast.show, signOut, setUser: (user) => setSession({ state: "in", user }) }}
    >
      <Shell key={lang} route={route} />
      <Toast message={toast.message} />
    </AppContext.Provider>
  );
}
