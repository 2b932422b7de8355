/**
 * Hash-based routing: `#/pipelines/abc/keys?x=1`. The server serves only `/`, so
 * it needs no SPA fallback, and reloads and the back button just work.
 */
import { useEffect, useState } from "preact/hooks";

export interface Route {
  /** Path segments, decoded: `#/pipelines/abc` → ["pipelines", "abc"]. */
  segments: string[];
  query: URLSearchParams;
}

/** Parses a location hash into segments and query. */
export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#/, "");
  const q = raw.indexOf("?");
  const path = q >= 0 ? raw.slice(0, q) : raw;
  const segments = path
    .split("/")
    .filter(Boolean)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
  return { segments, query: new URLSearchParams(q >= 0 ? raw.slice(q + 1) : "") };
}

/** The current route; re-renders the caller on every hash change. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseHash(location.hash));
    addEventListener("hashchange", onChange);
    return () => removeEventListener("hashchange", onChange);
  }, []);
  return route;
}

/** A link target: `href("/pipelines", { page: 2 })` → `#/pipelines?page=2`. */
export function href(path: string, query: Record<string, string | number | undefined> = {}): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== "") p.set(k, String(v));
  const s = p.toString();
  return `#${path}${s ? `?${s}` : ""}`;
}

/** Goes to a route; `replace` keeps the current entry out of the history. */
export function navigate(target: string, replace = false): void {
  const h = target.startsWith("#") ? target : `#${target}`;
  if (replace) {
    history.replaceState(null, "", h);
    dispatchEvent(new HashChangeEvent("hashchange"));
  } else location.hash = h;
}
