/**
 * The settings of `ragd mcp`, which runs no server of its own: it is a client of one.
 * Kept apart from config.ts, whose settings are the server's.
 */
import { ConfigError, url } from "./config-values";

type Source = Record<string, string | undefined>;

/** What `ragd mcp` needs: the server to forward to and the API key to send. */
export interface BridgeConfig {
  url: string;
  key: string;
}

/**
 * Settings of `ragd mcp`, a client of a running server: `--url` (RAGD_URL, default
 * http://127.0.0.1:8484) and `--key` (RAGD_API_KEY, so the key can stay out of
 * process listings). A flag wins over its variable.
 */
export function loadBridgeConfig(flags: Record<string, string>, env: Source = process.env): BridgeConfig {
  for (const name of Object.keys(flags)) {
    if (name !== "url" && name !== "key")
      throw new ConfigError(`unknown flag --${name} (ragd mcp takes --url and --key)`);
  }
  const pick = (flag: string, variable: string) => flags[flag] ?? (env[variable] || undefined);
  const rawUrl = pick("url", "RAGD_URL") ?? "http://127.0.0.1:8484";
  const key = pick("key", "RAGD_API_KEY");
  if (!key) throw new ConfigError("ragd mcp needs the pipeline's API key: --key rag_… or RAGD_API_KEY");
  return { url: url(rawUrl, flags.url !== undefined ? "--url" : "RAGD_URL"), key };
}
