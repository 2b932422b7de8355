/**
 * GET /docs: an interactive API reference (Swagger UI) whose script and styles are
 * embedded in the binary and served from /docs/assets, so the page works with no
 * network. GET /docs/openapi.json: the OpenAPI document generated from the routes.
 */
import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
// Embedded as text at build time: the binary carries them.
import bundleJs from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "text" };
import css from "swagger-ui-dist/swagger-ui.css" with { type: "text" };
import { version } from "../../version";

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ragd API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<style>body{margin:0} .topbar{display:none} .back{font:14px system-ui,sans-serif;padding:10px 20px;display:block}</style>
</head>
<body>
<a class="back" href="/">&larr; ragd dashboard</a>
<div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>`;

// validatorUrl null: Swagger UI would otherwise send the document to an outside validator.
const INIT = `window.ui = SwaggerUIBundle({
  url: "/docs/openapi.json",
  dom_id: "#ui",
  validatorUrl: null,
  deepLinking: true,
  withCredentials: true,
  tryItOutEnabled: false
});`;

const asset = (body: string, type: string) => () =>
  new Response(body, { headers: { "content-type": type, "cache-control": "public, max-age=3600" } });

export function docsRoutes() {
  return new Elysia({ name: "docs" })
    .use(
      openapi({
        path: "/docs",
        specPath: "/docs/openapi.json",
        provider: null,
        exclude: { paths: [/^\/docs/, /^\/assets/, "/", /^\/app/] },
        documentation: {
          info: {
            title: "ragd",
            version,
            description:
              "Self-hosted retrieval server. Session endpoints use the ragd_session cookie from /api/auth/login; " +
              "POST /api/rag/query uses a pipeline API key as `Authorization: Bearer rag_…`. " +
              'Every error has the body {"error": {"code", "message"}}.',
          },
          // Everything needs the session cookie unless an operation says otherwise.
          security: [{ session: [] }],
          components: {
            securitySchemes: {
              apiKey: {
                type: "http",
                scheme: "bearer",
                description: "An API key of a pipeline or a knowledge base (rag_…), or a tenant token of one",
              },
              session: { type: "apiKey", in: "cookie", name: "ragd_session" },
            },
          },
        },
      }),
    )
    .get("/docs", () => new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }), {
      detail: { hide: true },
    })
    .get("/docs/assets/swagger-ui-bundle.js", asset(bundleJs, "text/javascript; charset=utf-8"), {
      detail: { hide: true },
    })
    .get("/docs/assets/swagger-ui.css", asset(css, "text/css; charset=utf-8"), { detail: { hide: true } })
    .get("/docs/assets/init.js", asset(INIT, "text/javascript; charset=utf-8"), { detail: { hide: true } });
}
