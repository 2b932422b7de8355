/**
 * GET /api/ocr/languages: the language data OCR can read pictures with now (docs/API.md,
 * "OCR"): the built-in ones and those placed in the data directory's ocr folder, which a
 * pipeline's `ocrLanguages` may name.
 */
import { Elysia, t } from "elysia";
import type { Config } from "../../config";
import { sessionAuth } from "../../http/auth";
import { ErrorBody } from "../../http/schemas";
import { presentLanguages } from "../../ingest/ocr/languages";
import type { AuthService } from "../auth/service";
import { languageName } from "./names";

const OcrLanguage = t.Object({
  code: t.String({ description: "The name ocrLanguages takes, e.g. chi_sim" }),
  name: t.String({ description: "In English; the code itself when it names no known language" }),
  builtIn: t.Boolean({ description: "The executable's own data (no file in the ocr folder replaces it)" }),
  bytes: t.Integer({ description: "Size of the language data OCR loads" }),
});

export function ocrRoutes(auth: AuthService, config: Pick<Config, "dataDir">) {
  return new Elysia({ tags: ["Pipelines"] }).use(sessionAuth(auth)).get(
    "/api/ocr/languages",
    () => ({
      languages: presentLanguages(config.dataDir).map(({ code, builtIn, bytes }) => ({
        code,
        name: languageName(code),
        builtIn,
        bytes,
      })),
    }),
    {
      session: true,
      response: { 200: t.Object({ languages: t.Array(OcrLanguage) }), 401: ErrorBody },
      detail: { summary: "OCR language data present: built in, or placed in the data directory's ocr folder" },
    },
  );
}
