/**
 * The door to embedding: turns a model name as users write it into an Embedder,
 * and lists the models an Ollama server has, for the dashboard's model picker.
 */
import { Ollama } from "ollama";
import { BuiltinEmbedder } from "./builtin";
import { GloveEmbedder } from "./builtin-glove";
import { parseModel } from "./models";
import { OllamaEmbedder, type RemoteOptions } from "./ollama";
import { OpenAIEmbedder } from "./openai";
import { EmbeddingError, type Embedder } from "./types";

export interface EmbedderConfig extends Pick<RemoteOptions, "batchSize" | "concurrency" | "timeoutMs" | "attempts"> {
  ollamaUrl: string;
  openaiUrl: string | null;
  openaiKey: string | null;
}

/**
 * Builds the embedder for `modelName` (`builtin-glove`, `builtin`, `ollama/<m>`, a bare Ollama name
 * or `openai/<m>`); its `name` is the name as given. Throws EmbeddingError when the
 * name cannot be used.
 *
 * @example createEmbedder("nomic-embed-text", { ollamaUrl: "http://127.0.0.1:11434", openaiUrl: null, openaiKey: null })
 */
export function createEmbedder(modelName: string, cfg: EmbedderConfig): Embedder {
  const ref = parseModel(modelName, cfg.openaiUrl !== null);
  if ("error" in ref) throw new EmbeddingError(ref.error, false);
  const name = modelName.trim();
  const opts = {
    name,
    batchSize: cfg.batchSize,
    concurrency: cfg.concurrency,
    timeoutMs: cfg.timeoutMs,
    attempts: cfg.attempts,
  };
  switch (ref.provider) {
    case "builtin":
      return ref.model === "builtin" ? new BuiltinEmbedder() : new GloveEmbedder();
    case "ollama":
      return new OllamaEmbedder(cfg.ollamaUrl, ref.model, opts);
    case "openai":
      return new OpenAIEmbedder(cfg.openaiUrl!, cfg.openaiKey, ref.model, opts);
  }
}

/** Names of the models pulled into the Ollama at `ollamaUrl`; [] when it does not answer within 2 s. */
export async function listOllamaModels(ollamaUrl: string): Promise<string[]> {
  const signal = AbortSignal.timeout(2000);
  const fetchWithTimeout = (input: RequestInfo | URL, init?: RequestInit) => fetch(input, { ...init, signal });
  try {
    const { models } = await new Ollama({ host: ollamaUrl, fetch: fetchWithTimeout as typeof fetch }).list();
    return models.map((m) => m.name);
  } catch {
    return [];
  }
}
