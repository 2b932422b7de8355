/**
 * Embeddings from an OpenAI-compatible server (OpenAI, vLLM, LiteLLM, llama.cpp,
 * Ollama's /v1 …) via `POST {url}/v1/embeddings`.
 */
import { RemoteEmbedder, statusError, type RemoteOptions } from "./ollama";
import { EmbeddingError } from "./types";

interface EmbeddingsResponse {
  data?: { index?: number; embedding?: unknown }[];
}

/** The error text from OpenAI's `{error: {message}}`, or the looser shapes other servers send. */
function errorMessage(body: unknown, fallback: string): string {
  const b = body as { error?: unknown; detail?: unknown; message?: unknown } | null;
  const e = b?.error as { message?: unknown } | string | undefined;
  const msg = typeof e === "string" ? e : (e?.message ?? b?.detail ?? b?.message);
  return typeof msg === "string" && msg ? msg : fallback;
}

/** Embeds with `model` on the server at `url` (without `/v1`), sending `key` as a bearer token when set. */
export class OpenAIEmbedder extends RemoteEmbedder {
  constructor(
    private readonly url: string,
    private readonly key: string | null,
    private readonly model: string,
    opts: RemoteOptions & { name?: string } = {},
  ) {
    super(opts.name ?? `openai/${model}`, `OpenAI-compatible server at ${url}`, opts);
  }

  protected async send(batch: string[], signal: AbortSignal): Promise<unknown[]> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.key) headers.authorization = `Bearer ${this.key}`;
    const res = await fetch(`${this.url}/v1/embeddings`, {
      method: "POST",
      headers,
      body: JSON.stringify({ model: this.model, input: batch }),
      signal,
    });
    const body = (await res.json().catch(() => null)) as EmbeddingsResponse | null;
    if (!res.ok) throw this.failure(res.status, errorMessage(body, res.statusText));
    if (!Array.isArray(body?.data))
      throw new EmbeddingError(`${this.where} answered without a list of embeddings`, false);
    // The spec gives each item its index; nothing promises the list is in input order.
    return [...body.data].sort((a, b) => (a?.index ?? 0) - (b?.index ?? 0)).map((d) => d?.embedding);
  }

  protected explain(err: unknown): EmbeddingError {
    return new EmbeddingError(
      `${this.where} is not reachable: ${err instanceof Error ? err.message : String(err)}`,
      true,
    );
  }

  private failure(status: number, message: string): EmbeddingError {
    if (status === 401 || status === 403) {
      return new EmbeddingError(
        `${this.where} refused the API key (${status}): ${message}; check RAGD_OPENAI_KEY`,
        false,
      );
    }
    if (status === 404)
      return new EmbeddingError(`model "${this.model}" not found at ${this.url} (404): ${message}`, false);
    return statusError(this.where, status, message);
  }
}
