/**
 * The Content-Disposition of a download named after something a user chose, such as a
 * pipeline's name (docs/API.md, Export and import). The name loses what a header or a
 * file system must not get; `filename` is a plain-ASCII stand-in for old clients, and
 * `filename*` (RFC 6266, RFC 8187) the name itself, percent-encoded UTF-8, which every
 * current browser prefers.
 */

/** Each run of these becomes `-`: path separators, and characters Windows refuses in a file name. */
const SEPARATORS = /[/\\:*?"<>|]+/g;
/** Control and format characters, and line or paragraph separators: never in a header or a file name. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
/** A name keeps at most this many characters (before the suffix). */
const MAX_NAME = 100;

/**
 * `attachment; filename="…"; filename*=UTF-8''…` for `<name><suffix>`; `fallback` stands
 * for a name with nothing left.
 * @example attachment("Field notes", ".ragd-export.tar", "pipeline") // filename="Field notes.ragd-export.tar"
 */
export function attachment(name: string, suffix: string, fallback: string): string {
  const safe = safeName(name) || fallback;
  const ascii = `${safe.replace(/[^\x20-\x7e]|%/g, "_")}${suffix}`;
  const encoded = encodeURIComponent(`${safe}${suffix}`).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/**
 * The name as a file name: no separators or invisible characters, no dots or spaces at
 * its ends, no `-` at its start (an option to a command), not too long.
 */
function safeName(name: string): string {
  const cleaned = name
    .normalize("NFC")
    .replace(/\s+/g, " ")
    .replace(INVISIBLE, "")
    .replace(SEPARATORS, "-")
    .replace(/^[.\s-]+|[.\s]+$/g, "");
  return [...cleaned].slice(0, MAX_NAME).join("").trimEnd();
}
