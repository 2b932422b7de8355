/**
 * The one place that cleans an error message before a person sees it (a source's
 * error, a response, a readiness check). LanceDB's Rust errors end with the source
 * location in the machine that built it ("…, /usr/local/cargo/registry/src/…/lance-io-
 * 0.x/src/local.rs:105:31"): that says nothing to a user and leaks the build. Other
 * absolute paths not under the data directory are hidden too.
 */

// An absolute path, not inside a word or a URL ("http://h/p" is not one).
const ABSOLUTE = /(?<![\w:/.~-])\/[^\s,;'"()[\]<>]+/g;
// A Rust source location, absolute or relative, with what introduces it.
const RUST_LOCATION = /(?:,\s*|\s+at\s+|\s+)?(?:\/|\b)[^\s,;'"()[\]<>]*\.rs:\d+(?::\d+)?/g;

/** `message` without build-machine locations, and with absolute paths outside `dataDir` hidden. */
export function scrubMessage(message: string, dataDir?: string): string {
  const kept = (p: string) => dataDir !== undefined && (p === dataDir || p.startsWith(`${dataDir}/`));
  return message
    .replace(RUST_LOCATION, "")
    .replace(ABSOLUTE, (match) => {
      const path = match.replace(/[.:]+$/, "");
      return (kept(path) ? path : "[path]") + match.slice(path.length);
    })
    .replace(/\s{2,}/g, " ")
    .trim();
}
