/**
 * JSON body parsing with a size limit. ragd's JSON endpoints accept only
 * `application/json`; a body over the limit is 413 before it is all read, and a
 * malformed one is 400. Multipart bodies (knowledge-base uploads) and PUT bodies
 * (signed file uploads) are left unread here: their routes stream them to disk
 * themselves (see files/), and an Elysia route-level `parse: "none"` does not
 * stop a global parser.
 */
import { Elysia } from "elysia";
import { nestsDeeperThan, TOO_DEEP } from "../tools/json-depth";
import { asciiJsonText } from "../tools/json-text";
import { readCapped } from "../tools/streams";
import { AppError } from "./errors";

/**
 * Reads a JSON request body as text (asciiJsonText: one byte per character), failing
 * with 413 once `limit` bytes are exceeded. A body of declared length is read whole by
 * the runtime, which reads no more than it declares; one without is read piece by
 * piece, and given up as soon as it passes the limit.
 */
export async function readJsonTextLimited(request: Request, limit: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (declared > limit) throw tooLarge(limit);
  const bytes =
    Number.isFinite(declared) && request.body !== null
      ? await request.bytes()
      : await readCapped(request.body, limit, () => {
          throw tooLarge(limit);
        });
  if (bytes.byteLength > limit) throw tooLarge(limit);
  return asciiJsonText(bytes);
}

function tooLarge(limit: number): AppError {
  return new AppError("payload_too_large", `the request body is larger than ${limit} bytes`);
}

/** True when the request carries a body (or says it does). */
export function hasBody(request: Request): boolean {
  const len = request.headers.get("content-length");
  if (len !== null) return Number(len) > 0;
  return request.body !== null;
}

/** The global JSON parser. */
export function jsonBody(maxBytes: number) {
  return new Elysia({ name: "json-body" }).onParse({ as: "global" }, async ({ request, contentType }) => {
    const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
    if (type === "application/json" || type.endsWith("+json")) {
      const text = await readJsonTextLimited(request, maxBytes);
      if (text.trim() === "") return {};
      // Checked before parsing: validating a value nested this deep would overflow the stack.
      if (nestsDeeperThan(text)) throw new AppError("invalid_request", `the request body is ${TOO_DEEP}`);
      try {
        return JSON.parse(text);
      } catch {
        throw new AppError("invalid_request", "the request body is not valid JSON");
      }
    }
    if (!hasBody(request)) return {};
    if (type === "multipart/form-data" || request.method === "PUT") return {};
    throw new AppError("unsupported_media_type", "send the body as JSON with Content-Type: application/json");
  });
}
