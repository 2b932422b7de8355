/**
 * Reachability of embedding backends, for /readyz. The built-in embedder is
 * always there; Ollama is asked for its version, an OpenAI-compatible server for
 * its model list, each with a short timeout.
 */
import { Ollama } from "ollama";
import type { EmbedderConfig } from "./index";
import { parseModel } from "./models";

export interface BackendHealth {
  backend: string;
  ok: boolean;
  error?: string;
}

const TIMEOUT_MS = 2000;

async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: Timer | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether the Ollama at `url` answers its version within 2 s, and why not. */
export async function checkOllama(url: string): Promise<BackendHealth> {
  try {
    await withTimeout(new Ollama({ host: url }).version(), TIMEOUT_MS);
    return { backend: `ollama ${url}`, ok: true };
  } catch (err) {
    return {
      backend: `ollama ${url}`,
      ok: false,
      error: `Ollama at ${url} is not reachable: ${(err as Error).message}`,
    };
  }
}

async function checkOpenAI(url: string, key: string | null): Promise<BackendHealth> {
  try {
    const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
    const res = await withTimeout(fetch(`${url}/v1/models`, { headers }), TIMEOUT_MS);
    if (!res.ok) return { backend: `openai ${url}`, ok: false, error: `${url} answered ${res.status}` };
    return { backend: `openai ${url}`, ok: true };
  } catch (err) {
    return { backend: `openai ${url}`, ok: false, error: `${url} is not reachable: ${(err as Error).message}` };
  }
}

/** Checks each backend that one of `models` needs, once per backend. */
export async function checkBackends(
  models: string[],
  config: Pick<EmbedderConfig, "ollamaUrl" | "openaiUrl" | "openaiKey">,
): Promise<BackendHealth[]> {
  const providers = new Set(
    models.map((m) => parseModel(m, config.openaiUrl !== null)).flatMap((r) => ("error" in r ? [] : [r.provider])),
  );
  const checks: Promise<BackendHealth>[] = [];
  if (providers.has("builtin")) checks.push(Promise.resolve({ backend: "builtin", ok: true }));
  if (providers.has("ollama")) checks.push(checkOllama(config.ollamaUrl));
  if (providers.has("openai") && config.openaiUrl) checks.push(checkOpenAI(config.openaiUrl, config.openaiKey));
  return Promise.all(checks);
}
