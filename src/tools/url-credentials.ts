/**
 * Credentials inside a URL (`https://user:secret@host/`) are needed to fetch it and must
 * never be shown: ragd keeps the URL without them for display and the `user:secret` part
 * apart, and joins the two only to fetch.
 */

/**
 * Splits an absolute URL into its form without userinfo and the userinfo itself
 * (percent-encoded as in the URL; null when there is none).
 * @example splitCredentials("http://u:p@h/x") // { url: "http://h/x", credentials: "u:p" }
 */
export function splitCredentials(href: string): { url: string; credentials: string | null } {
  const u = new URL(href);
  if (!u.username && !u.password) return { url: u.href, credentials: null };
  const credentials = u.password ? `${u.username}:${u.password}` : u.username;
  u.username = "";
  u.password = "";
  return { url: u.href, credentials };
}

/** Puts stored credentials back into a display URL, for the fetcher only. */
export function joinCredentials(url: string, credentials: string | null): string {
  if (!credentials) return url;
  const u = new URL(url);
  const colon = credentials.indexOf(":");
  u.username = colon < 0 ? credentials : credentials.slice(0, colon);
  if (colon >= 0) u.password = credentials.slice(colon + 1);
  return u.href;
}
