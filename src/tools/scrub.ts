/**
 * Cleans a message that came from a lower layer or a library (a task's failure, a
 * readiness check, a parser's complaint) before a person sees it. LanceDB's Rust errors
 * end with the source location in the machine that built it ("…, /usr/local/cargo/
 * registry/src/…/lance-io-0.x/src/local.rs:105:31"): that says nothing to a user and
 * leaks the build. Filesystem paths of that machine are hidden too; URL paths such as
 * /api/rag/query and anything inside a URL are not paths on disk and stay. ragd's own
 * messages are not passed through here.
 */

// An absolute path, not inside a word or a URL ("http://h/p" is not one).
const ABSOLUTE = /(?<![\w:/.~-])\/[^\s,;'"()[\]<>]+/g;
// A Rust source location, absolute or relative, with what introduces it.
const RUST_LOCATION = /(?:,\s*|\s+at\s+|\s+)?(?:\/|\b)[^\s,;'"()[\]<>]*\.rs:\d+(?::\d+)?/g;
// Roots of a machine's filesystem; a path under one of them is a file, never a route.
const FILESYSTEM_ROOT =
  /^\/(?:usr|home|root|opt|tmp|var|etc|build|rustc|cargo|srv|mnt|private|Users|proc|dev|snap|nix)(?:\/|$)/;
// A source file of some language, wherever it lies.
const SOURCE_FILE = /\.(?:rs|ts|tsx|js|mjs|cjs|c|cc|cpp|h|hpp|go|py|zig)(?::\d+)*$/;

/** Whether `path` names a file of some machine rather than, say, a URL path. */
function isFilesystemPath(path: string): boolean {
  return FILESYSTEM_ROOT.test(path) || SOURCE_FILE.test(path);
}

/** `message` without build-machine locations, and with filesystem paths outside `dataDir` hidden. */
export function scrubMessage(message: string, dataDir?: string): string {
  const kept = (p: string) => dataDir !== undefined && (p === dataDir || p.startsWith(`${dataDir}/`));
  return message
    .replace(RUST_LOCATION, "")
    .replace(ABSOLUTE, (match) => {
      const path = match.replace(/[.:]+$/, "");
      if (kept(path) || !isFilesystemPath(path)) return match;
      return `[path]${match.slice(path.length)}`;
    })
    .replace(/\s{2,}/g, " ")
    .trim();
}
