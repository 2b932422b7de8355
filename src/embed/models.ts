/**
 * Embedding model names as users write them: `builtin-glove` and `builtin` (the two
 * built-in embedders), `ollama/<model>` or a bare Ollama model name, and
 * `openai/<model>` for an OpenAI-compatible server.
 */
export type EmbeddingProvider = "builtin" | "ollama" | "openai";

export interface ModelRef {
  provider: EmbeddingProvider;
  /** The model name the backend knows (without our prefix). */
  model: string;
}

/** The built-in models, newest first: the first is the default for new pipelines (docs/API.md, The built-in models). */
export const BUILTIN_MODELS = ["builtin-glove", "builtin"] as const;

/** True for a model computed inside ragd (no network, no batching). */
export const isBuiltinModel = (name: string) => (BUILTIN_MODELS as readonly string[]).includes(name.trim());

// Ollama names: optional namespace, name, optional tag (e.g. jina/jina-embeddings-v2-base-en:latest).
const OLLAMA_NAME = /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)?(:[a-z0-9][a-z0-9._-]*)?$/i;
const OPENAI_NAME = /^[a-z0-9][a-z0-9._:/-]*$/i;

/**
 * Parses a model name; returns a reason instead when it cannot be used.
 * `openaiConfigured` tells whether RAGD_OPENAI_URL is set.
 */
export function parseModel(name: string, openaiConfigured: boolean): ModelRef | { error: string } {
  const n = name.trim();
  if (isBuiltinModel(n)) return { provider: "builtin", model: n };
  if (n.startsWith("openai/")) {
    const model = n.slice("openai/".length);
    if (!openaiConfigured) return { error: "openai/ models need RAGD_OPENAI_URL to be set on the server" };
    if (!OPENAI_NAME.test(model) || model.length > 200) return { error: `"${model}" is not a valid model name` };
    return { provider: "openai", model };
  }
  const model = n.startsWith("ollama/") ? n.slice("ollama/".length) : n;
  if (!OLLAMA_NAME.test(model) || model.length > 200) {
    return {
      error: `"${name}" is not a model ragd knows: use builtin-glove, builtin, ollama/<model>, a bare Ollama model name or openai/<model>`,
    };
  }
  return { provider: "ollama", model };
}
