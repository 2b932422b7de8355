/** Configuration for MCP clients, LangChain and LlamaIndex with the new key filled in, to copy. */
import { useState } from "preact/hooks";
import { mcpCommand } from "../api/endpoints";
import { t } from "../i18n";
import { type ClientConfig, clientConfigs } from "../lib/client-configs";
import { useLoad } from "../lib/hooks";
import { CopyButton } from "./CopyButton";
import { Segmented } from "./Segmented";

/** A snippet to show: one of clientConfigs(), or a knowledge base's search. */
type Shown = Omit<ClientConfig, "id"> & { id: ClientConfig["id"] | "kb-search" };

/**
 * A chooser of clients and the chosen one's snippet with a Copy button. A knowledge base's
 * key (`kbId`) gets its search with curl and the MCP clients: the retrievers call the
 * pipeline query endpoint, which such a key cannot.
 */
export function ClientConfigs({ apiKey, kbId }: { apiKey: string; kbId?: string }) {
  // The MCP command names the server's own executable (undefined until the server says).
  const executable = useLoad(() => mcpCommand(), []).data?.command;
  const all: Shown[] = clientConfigs(location.origin, apiKey, executable);
  const configs = kbId ? [kbSearch(location.origin, kbId, apiKey), ...all.filter((c) => c.id.startsWith("mcp-"))] : all;
  const [id, setId] = useState<Shown["id"]>(kbId ? "kb-search" : "mcp-http");
  const chosen = configs.find((c) => c.id === id) ?? configs[0]!;
  const label = t("clients.configOf", { client: chosen.label });
  return (
    <section class="client-configs" aria-labelledby="client-configs-h">
      <div class="section-head">
        <h3 id="client-configs-h">{t("clients.title")}</h3>
        <CopyButton text={chosen.code} label={t("clients.copy")} class="btn btn-small" />
      </div>
      <Segmented
        legend={t("clients.client")}
        value={id}
        options={configs.map((c) => [c.id, c.label] as [Shown["id"], string])}
        onChange={setId}
      />
      <p class="hint">{chosen.hint}</p>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
      {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: the label names the scrollable region */}
      <pre class="code" tabIndex={0} aria-label={label} data-testid="client-config">
        <code>{chosen.code}</code>
      </pre>
    </section>
  );
}

/** A knowledge base's search with curl, its key filled in (docs/API.md, Knowledge base keys). */
function kbSearch(origin: string, kbId: string, key: string): Shown {
  const code = `curl -X POST ${origin}/api/kb/${kbId}/search \\
  -H "Authorization: Bearer ${key}" \\
  -H "content-type: application/json" \\
  -d '{"query":"your question","topK":5}'
`;
  return { id: "kb-search", label: "curl", hint: t("kbKeys.searchHint"), code };
}
