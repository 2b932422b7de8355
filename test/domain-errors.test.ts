/**
 * The lower layers' domain errors (core/errors.ts) leave ragd as the same answers the
 * HTTP layer's own AppError gave before they had their own type: status, headers and
 * body byte for byte.
 */
import { describe, expect, test } from "bun:test";
import { DomainError, missing } from "../src/core/errors";
import { AppError, appErrorOf, errorResponse, notFound, toAppError } from "../src/http/errors";
import { createLogger } from "../src/log";

const log = createLogger("error");

async function answer(err: unknown, code: string | number = "UNKNOWN") {
  const res = errorResponse(toAppError(code, err, log, "req-1"), "req-1");
  return { status: res.status, type: res.headers.get("content-type"), body: await res.text() };
}

describe("domain errors as HTTP answers", () => {
  test("a missing thing is the 404 notFound gave", async () => {
    expect(await answer(missing("pipeline"))).toEqual(await answer(new AppError("not_found", "pipeline not found")));
    expect(await answer(missing("pipeline"))).toEqual({
      status: 404,
      type: "application/json",
      body: '{"error":{"code":"not_found","message":"pipeline not found"}}',
    });
    expect(notFound("source")).toEqual(new AppError("not_found", "source not found"));
  });

  test("a conflict keeps its message and the fields at fault", async () => {
    const problems = [{ field: "file", message: "duplicateOf: d1" }];
    const domain = new DomainError("conflict", "the same file is already here", problems);
    expect(await answer(domain)).toEqual(
      await answer(new AppError("conflict", "the same file is already here", problems)),
    );
    expect((await answer(domain)).status).toBe(409);
  });

  test("wrapped by a parse hook, or caught by a feature, it is the same AppError", async () => {
    const wrapped = Object.assign(new Error("parse"), { cause: missing("source") });
    expect(await answer(wrapped, "PARSE")).toEqual(await answer(new AppError("not_found", "source not found")));
    expect(appErrorOf(missing("source"))?.status).toBe(404);
    expect(appErrorOf(new Error("other"))).toBeNull();
  });
});
