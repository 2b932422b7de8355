/** GET /api/languages: the values a pipeline's or knowledge base's `language` can take (CONTRACT §15). */
import { Elysia, t } from "elysia";
import { sessionAuth } from "../../http/auth";
import { Enum, ErrorBody } from "../../http/schemas";
import { AUTO, languageList } from "../../text/languages";
import type { AuthService } from "../auth/service";

const Language = t.Object({
  code: t.String(),
  name: t.String({ description: "The language's English name." }),
  stemming: t.Boolean({ description: "Inflected forms of a word find each other (Häuser, Haus)." }),
  words: Enum(["spaces", "dictionary", "syllable-pairs"] as const, {
    description: "How words are found: at spaces and punctuation, by a dictionary, or as pairs of syllables.",
  }),
});

export function languageRoutes(auth: AuthService) {
  const list = languageList();
  return new Elysia({ tags: ["Pipelines"] })
    .use(sessionAuth(auth))
    .get("/api/languages", () => ({ default: AUTO, languages: list }), {
      session: true,
      response: { 200: t.Object({ default: t.String(), languages: t.Array(Language) }), 401: ErrorBody },
      detail: { summary: "Languages a pipeline can be set to (besides auto, the default)" },
    });
}
