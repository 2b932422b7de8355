/** Configuration for MCP clients, LangChain and LlamaIndex with the new key filled in, to copy. */
import { useState } from "preact/hooks";
import { t } from "../i18n";
import { type ClientConfig, clientConfigs } from "../lib/client-configs";
import { CopyButton } from "./CopyButton";
import { Segmented } from "./Segmented";

/** A chooser of clients and the chosen one's snippet with a Copy button. */
export function ClientConfigs({ apiKey }: { apiKey: string }) {
  const configs = clientConfigs(location.origin, apiKey);
  const [id, setId] = useState<ClientConfig["id"]>("mcp-http");
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
        options={configs.map((c) => [c.id, c.label] as [ClientConfig["id"], string])}
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
