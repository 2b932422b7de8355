/** Configuration for MCP clients, LangChain and LlamaIndex with the new key filled in, to copy. */
import { useState } from "preact/hooks";
import { type ClientConfig, clientConfigs } from "../lib/client-configs";
import { CopyButton } from "./CopyButton";
import { Segmented } from "./Segmented";

/** A chooser of clients and the chosen one's snippet with a Copy button. */
export function ClientConfigs({ apiKey }: { apiKey: string }) {
  const configs = clientConfigs(location.origin, apiKey);
  const [id, setId] = useState<ClientConfig["id"]>("mcp-http");
  const chosen = configs.find((c) => c.id === id) ?? configs[0]!;
  return (
    <section class="client-configs" aria-labelledby="client-configs-h">
      <div class="section-head">
        <h3 id="client-configs-h">Connect an agent or an app</h3>
        <CopyButton text={chosen.code} label="Copy configuration" class="btn btn-small" />
      </div>
      <Segmented
        legend="Client"
        value={id}
        options={configs.map((c) => [c.id, c.label] as [ClientConfig["id"], string])}
        onChange={setId}
      />
      <p class="hint">{chosen.hint}</p>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
      {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: the label names the scrollable region */}
      <pre class="code" tabIndex={0} aria-label={`${chosen.label} configuration`} data-testid="client-config">
        <code>{chosen.code}</code>
      </pre>
    </section>
  );
}
