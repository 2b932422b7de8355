/**
 * tools/call of the MCP endpoint (docs/API.md, MCP): ragd answers it itself rather than
 * through the SDK's handler, so that every failure, also arguments the tool's schema
 * refuses and an unknown tool, is a tool error with `structuredContent.error` and a
 * sentence a person can act on (the SDK answers those with its own text and no code).
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { AppError, type ErrorCode } from "../../http/errors";
import type { Logger } from "../../log";
import { RetrievalError } from "../../retrieval/errors";

/** One tool as tools/call runs it: its arguments' schema and what it does with them. */
export interface CallableTool {
  input: z.ZodType;
  run: (args: never) => Promise<unknown>;
}

/** What a call needs besides the tool: the log, and the key's check made before each call. */
export interface CallContext {
  log: Logger;
  /** Throws the key's 401 when it no longer holds (revoked, expired, owner disabled). */
  recheck: () => Promise<unknown>;
}

/** Answers one tools/call: the tool's JSON, or a tool error (never a protocol error). */
export async function callTool(
  tools: Map<string, CallableTool>,
  ctx: CallContext,
  params: { name: string; arguments?: Record<string, unknown> },
): Promise<CallToolResult> {
  const tool = tools.get(params.name);
  if (!tool)
    return toolError("not_found", `tool ${params.name} not found; the tools are ${[...tools.keys()].join(", ")}`);
  const parsed = tool.input.safeParse(params.arguments ?? {});
  if (!parsed.success) return toolError("invalid_request", argumentProblem(parsed.error.issues));
  return answer(ctx, async () => {
    await ctx.recheck();
    return tool.run(parsed.data as never);
  });
}

/** Runs a tool and turns its value, or its failure, into a tool result. */
export async function answer(ctx: Pick<CallContext, "log">, run: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    const value = await run();
    return { content: [{ type: "text", text: JSON.stringify(value) }] };
  } catch (err) {
    const { code, message } = publicError(err, ctx.log);
    return toolError(code, message);
  }
}

function toolError(code: string, message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], structuredContent: { error: { code, message } }, isError: true };
}

/** The code and sentence the HTTP API would answer with; an unexpected error is logged, not shown. */
function publicError(err: unknown, log: Logger): { code: ErrorCode | string; message: string } {
  if (err instanceof AppError || err instanceof RetrievalError) return { code: err.code, message: err.message };
  log.error("mcp tool failed", { error: err instanceof Error ? err : String(err), stack: (err as Error)?.stack });
  return { code: "internal_error", message: "something went wrong on our side" };
}

/** The first problem with the arguments, named by its path as the HTTP API names fields (`filter.sourceIds`). */
export function argumentProblem(issues: z.core.$ZodIssue[]): string {
  const issue = issues[0];
  if (!issue) return "the arguments are invalid";
  const path = issue.path.map(String).join(".");
  const at = (p: string) => (p ? `${p}: ` : "");
  switch (issue.code) {
    case "unrecognized_keys":
      return issue.keys.map((k) => `${at(path ? `${path}.${k}` : k)}unknown argument`).join("; ");
    case "invalid_type":
      // zod's own text is the one place that tells a missing argument from a wrong one.
      if (issue.message.endsWith("received undefined")) return `${at(path)}is required`;
      return `${at(path)}must be ${article(issue.expected)}`;
    case "too_small":
    case "too_big": {
      const least = issue.code === "too_small";
      const bound = least ? issue.minimum : issue.maximum;
      if (least && issue.origin === "string" && Number(bound) === 1) return `${at(path)}must not be empty`;
      const word = issue.inclusive ? (least ? "at least" : "at most") : least ? "more than" : "less than";
      const unit = issue.origin === "string" ? " characters" : issue.origin === "array" ? " items" : "";
      return `${at(path)}must be ${word} ${bound}${unit}`;
    }
    case "invalid_value":
      return `${at(path)}must be one of: ${issue.values.map(String).join(", ")}`;
    default:
      return `${at(path)}${issue.message}`;
  }
}

const article = (type: string) => (type === "int" ? "an integer" : /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);
