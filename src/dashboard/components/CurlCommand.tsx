/** The playground's query as a curl command for a program with an API key. */
import type { QueryInput } from "../api/endpoints";
import { rich, t } from "../i18n";
import { CopyButton } from "./CopyButton";

/** Single-quotes a string for a POSIX shell. */
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The command for the same query; the key is a variable (the dashboard never holds one). */
export function CurlCommand({ input }: { input: QueryInput }) {
  const key = "$RAGD_API_KEY";
  // Every field the playground sends (the query options too), in its order.
  const body = JSON.stringify({ ...input, query: input.query || t("curl.yourQuestion") });
  const cmd = [
    `curl -X POST ${location.origin}/api/rag/query \\`,
    `  -H "Authorization: Bearer ${key}" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d ${shellQuote(body)}`,
  ].join("\n");
  return (
    <section class="card" aria-labelledby="curl-h">
      <div class="section-head">
        <h2 id="curl-h">{t("curl.title")}</h2>
        <CopyButton text={cmd} label={t("copy.command")} class="btn btn-small" />
      </div>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
      {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: the label names the scrollable region */}
      <pre class="code" tabIndex={0} aria-label={t("curl.label")}>
        <code>{cmd}</code>
      </pre>
      <p class="hint">{rich("curl.hint", { variable: <code>RAGD_API_KEY</code> })}</p>
    </section>
  );
}
