/**
 * Just enough of a browser for sign-in flows: follows redirects by hand, keeps each
 * origin's cookies, and submits the forms the test provider shows.
 */
export interface FlowResult {
  /** The last answer, from ragd's callback (a redirect home, or an error page). */
  status: number;
  location: string | null;
  body: string;
  /** The ragd_session cookie ragd set, if any. */
  session: string | undefined;
}

export class Browser {
  private readonly jars = new Map<string, Map<string, string>>();

  /** A request as a browser sends it: with this origin's cookies, redirects not followed. */
  async go(url: string, init: RequestInit = {}): Promise<Response> {
    const origin = new URL(url).origin;
    const jar = this.jars.get(origin) ?? new Map<string, string>();
    this.jars.set(origin, jar);
    const headers = new Headers(init.headers);
    if (jar.size) headers.set("cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "));
    const res = await fetch(url, { ...init, headers, redirect: "manual" });
    for (const c of res.headers.getSetCookie()) {
      const [pair = "", ...attrs] = c.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const gone = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a));
      if (gone) jar.delete(name);
      else jar.set(name, pair.slice(eq + 1).trim());
    }
    return res;
  }

  cookie(origin: string, name: string): string | undefined {
    return this.jars.get(origin)?.get(name);
  }

  /**
   * Starts at `startUrl` and walks the provider's pages, signing in as `login` and
   * consenting, until ragd (at `ragdOrigin`) answers something other than a redirect
   * back to the provider.
   */
  async signIn(startUrl: string, login: string, ragdOrigin: string): Promise<FlowResult> {
    let url = startUrl;
    let init: RequestInit = {};
    for (let step = 0; step < 20; step++) {
      const res = await this.go(url, init);
      init = {};
      const location = res.headers.get("location");
      const here = new URL(url);
      if (here.origin === ragdOrigin && here.pathname !== new URL(startUrl).pathname) {
        return {
          status: res.status,
          location,
          body: await res.text(),
          session: this.cookie(ragdOrigin, "ragd_session"),
        };
      }
      if (location) {
        url = new URL(location, url).href;
        continue;
      }
      const html = await res.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
      if (!action) throw new Error(`no form on ${url} (${res.status}): ${html.slice(0, 300)}`);
      const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
      const form = new URLSearchParams({ prompt: prompt ?? "" });
      if (prompt === "login") form.set("login", login), form.set("password", "any");
      url = new URL(action.replace(/&amp;/g, "&"), url).href;
      init = {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: form.toString(),
      };
    }
    throw new Error("sign-in did not finish in 20 steps");
  }
}
