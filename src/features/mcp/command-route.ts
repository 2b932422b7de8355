/**
 * GET /api/mcp/command: what an MCP client's "command" should name to start `ragd mcp` on
 * this machine, for the dashboard's ready-to-paste configuration (docs/agents.md). A bare
 * `ragd` works only where the executable is on the PATH (`spawn ragd ENOENT` elsewhere), so
 * the server names the executable it runs as; run from source there is no executable to
 * name, and the dashboard says to build one first.
 */
import { Elysia, t } from "elysia";
import { sessionAuth } from "../../http/auth";
import { ErrorBody } from "../../http/schemas";
import type { AuthService } from "../auth/service";

/** The running executable's absolute path, or null when ragd runs from source (under `bun`). */
export function runningExecutable(
  compiled = import.meta.url.includes("$bunfs"),
  execPath = process.execPath,
): string | null {
  return compiled ? execPath : null;
}

export function mcpCommandRoutes(auth: AuthService) {
  const command = runningExecutable();
  return new Elysia({ tags: ["API keys"] }).use(sessionAuth(auth)).get("/api/mcp/command", () => ({ command }), {
    session: true,
    response: {
      200: t.Object({
        command: t.Nullable(
          t.String({
            description:
              "The absolute path of the running ragd executable, for an MCP client's `command`; null when the server runs from source (build the executable first).",
          }),
        ),
      }),
      401: ErrorBody,
    },
    detail: { summary: "The executable an MCP client starts for `ragd mcp` on this machine" },
  });
}
