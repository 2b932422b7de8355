/** The playground's query as a curl command, ready to paste into a terminal. */
import { useState } from "preact/hooks";
import type { QueryInput } from "../api/endpoints";
import { CopyButton } from "./CopyButton";

/** Single-quotes a string for a POSIX shell. */
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The command for the same query; the key stays a variable unless asked for. */
export function CurlCommand({ input, apiKey }: { input: QueryInput; apiKey: string | null }) {
  const [withKey, setWithKey] = useState(false);
  const key = withKey && apiKey ? apiKey : "$RAGD_API_KEY";
  const body = JSON.stringify({
    query: input.query || "your question",
    topK: input.topK,
    mode: input.mode,
    filter: input.filter,
    hybridAlpha: input.hybridAlpha,
    diversity: input.diversity,
  });
  const cmd = [
    `curl -X POST ${location.origin}/api/rag/query \\`,
    `  -H "Authorization: Bearer ${key}" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d ${shellQuote(body)}`,
  ].join("\n");
  return (
    <section class="card" aria-labelledby="curl-h">
      <div class="section-head">
        <h2 id="curl-h">The same query with curl</h2>
        <CopyButton text={cmd} label="Copy command" class="btn btn-small" />
      </div>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
      {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: the label names the scrollable region */}
      <pre class="code" tabIndex={0} aria-label="curl command">
        <code>{cmd}</code>
      </pre>
      <label class="check">
        <input
          type="checkbox"
          checked={withKey}
          disabled={!apiKey}
          onChange={(e) => setWithKey(e.currentTarget.checked)}
        />
        Put the key itself in the command (otherwise set <code>RAGD_API_KEY</code> first)
      </label>
    </section>
  );
}
