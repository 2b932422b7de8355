/**
 * GET /api/embedding-models: what a new pipeline can use — the built-in
 * embedder, the models pulled into the configured Ollama (when it answers),
 * and a hint for OpenAI-compatible models when that server is configured.
 */
import { Elysia, t } from "elysia";
import type { Config } from "../../config";
import { checkOllama } from "../../embed/health";
import { listOllamaModels } from "../../embed/index";
import { sessionAuth } from "../../http/auth";
import { Enum, ErrorBody } from "../../http/schemas";
import type { AuthService } from "../auth/service";

const Model = t.Object({
  name: t.String(),
  provider: Enum(["builtin", "ollama", "openai"] as const),
  description: t.Optional(t.String()),
});

export function modelRoutes(
  auth: AuthService,
  config: Pick<Config, "ollamaUrl" | "openaiUrl" | "defaultEmbeddingModel">,
) {
  return new Elysia({ tags: ["Pipelines"] }).use(sessionAuth(auth)).get(
    "/api/embedding-models",
    async () => {
      const pulled = await listOllamaModels(config.ollamaUrl);
      const ollamaUp = pulled.length > 0 || (await checkOllama(config.ollamaUrl)).ok;
      return {
        models: [
          {
            name: "builtin-glove",
            provider: "builtin" as const,
            description:
              "Word features in every language, plus English word meanings (synonyms match only in English).",
          },
          { name: "builtin", provider: "builtin" as const, description: "Word features in every language." },
          // ":latest" is what Ollama assumes anyway; the short name is what people type.
          ...pulled.map((name) => ({ name: `ollama/${name.replace(/:latest$/, "")}`, provider: "ollama" as const })),
        ],
        default: config.defaultEmbeddingModel,
        ollama: { reachable: ollamaUp, url: config.ollamaUrl },
        openai: { configured: config.openaiUrl !== null },
      };
    },
    {
      session: true,
      response: {
        200: t.Object({
          models: t.Array(Model),
          default: t.String(),
          ollama: t.Object({ reachable: t.Boolean(), url: t.String() }),
          openai: t.Object({ configured: t.Boolean() }),
        }),
        401: ErrorBody,
      },
      detail: { summary: "Embedding models a pipeline can use (installed Ollama models included when Ollama answers)" },
    },
  );
}
