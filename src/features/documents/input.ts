/**
 * Checks one document as a client sends it (docs/API.md, Documents API) and turns
 * it into an upsert plan. Every problem names its field, prefixed as the caller
 * says (`documents.3.` for a batch item), so one bad item never hides which it was.
 */
import { readFetchSettings } from "../../core/fetch-settings";
import { externalIdProblem, type Metadata, metadataProblems } from "../../core/metadata";
import { AppError, type FieldProblem } from "../../http/errors";
import { sourceUrlProblem } from "../../ingest/fetch";
import type { UpsertPlan } from "../../ingest/write/upsert";
import { sha256 } from "../../tools/crypto";
import { splitCredentials } from "../../tools/url-credentials";
import { DOCUMENT_TYPES } from "./schemas";

const FIELDS = ["externalId", "type", "name", "content", "url", "metadata", "refreshEvery", "crawl"];

export interface ItemContext {
  collectionId: string;
  filePathOf: ((documentId: string) => string) | null;
  /** Field names are prefixed with this (e.g. "documents.3."). */
  prefix: string;
  /** The fetch rules a url/api document's URL is checked against (RAGD_FETCH_ALLOW, RAGD_FETCH_DENY). */
  fetchRules: { fetchAllow: string[]; fetchDeny: string[] };
}

/** Throws invalid_request naming every problem found. */
function refuse(problems: FieldProblem[]): never {
  const first = problems[0]!;
  throw new AppError("invalid_request", `${first.field}: ${first.message}`, problems);
}

/** The external id of a path or an item; 400 naming the field when it is unusable. */
export function checkExternalId(value: unknown, field = "externalId"): string {
  const problem = externalIdProblem(value, field);
  if (problem) refuse([problem]);
  return value as string;
}

/** A display name: 1..200 characters after trimming. */
function nameProblem(value: unknown, field: string): FieldProblem | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.trim().length === 0 || value.trim().length > 200)
    return { field, message: "must be 1 to 200 characters, not counting whitespace around it" };
  return undefined;
}

function urlProblem(value: unknown, field: string, rules: ItemContext["fetchRules"]): FieldProblem | undefined {
  if (typeof value !== "string" || value.length === 0)
    return { field, message: "is required for a url or api document" };
  const message = sourceUrlProblem(value, rules);
  return message ? { field, message } : undefined;
}

/** Problems of a metadata value, or of the document's fields, with the prefix applied. */
export function checkMetadata(value: unknown, field: string): Metadata | undefined {
  if (value === undefined) return undefined;
  const problems = metadataProblems(value, field);
  if (problems.length) refuse(problems);
  return value as Metadata;
}

/** Checks a JSON document (text, url or api) and plans its upsert. */
export function planJsonDocument(body: unknown, externalId: string, ctx: ItemContext): UpsertPlan {
  const f = (name: string) => `${ctx.prefix}${name}`;
  if (typeof body !== "object" || body === null || Array.isArray(body))
    refuse([{ field: ctx.prefix.replace(/\.$/, "") || "body", message: "must be a JSON object" }]);
  const b = body as Record<string, unknown>;
  const problems: FieldProblem[] = [];
  for (const key of Object.keys(b))
    if (!FIELDS.includes(key))
      problems.push({ field: f(key), message: `unknown field; expected one of: ${FIELDS.join(", ")}` });
  if (!(DOCUMENT_TYPES as readonly unknown[]).includes(b.type))
    problems.push({
      field: f("type"),
      message: `must be one of: ${DOCUMENT_TYPES.join(", ")} (send a file as multipart/form-data)`,
    });
  const bad = nameProblem(b.name, f("name"));
  if (bad) problems.push(bad);
  if (b.type === "text" && (typeof b.content !== "string" || b.content.trim() === ""))
    problems.push({ field: f("content"), message: "is required for a text document" });
  if (b.type !== "text" && b.content !== undefined)
    problems.push({ field: f("content"), message: "is only for text documents" });
  if (b.type === "url" || b.type === "api") {
    const u = urlProblem(b.url, f("url"), ctx.fetchRules);
    if (u) problems.push(u);
  } else if (b.url !== undefined) problems.push({ field: f("url"), message: "is only for url and api documents" });
  if (b.metadata !== undefined) problems.push(...metadataProblems(b.metadata, f("metadata")));
  // The schedule and crawl of url/api documents, checked as the sources API checks them.
  const fetch = readFetchSettings(String(b.type), b, ctx.prefix);
  problems.push(...fetch.problems);
  if (problems.length) refuse(problems);
  const type = b.type as (typeof DOCUMENT_TYPES)[number];
  const name = typeof b.name === "string" ? b.name.trim() : undefined;
  const base = {
    collectionId: ctx.collectionId,
    externalId,
    name,
    filePathOf: ctx.filePathOf,
    fieldPrefix: ctx.prefix,
  };
  const metadata = b.metadata as Metadata | undefined;
  if (type === "text") {
    const content = b.content as string;
    return {
      ...base,
      type,
      derivedName: content.trim().slice(0, 60) || externalId.slice(0, 200),
      content,
      contentHash: sha256(content),
      metadata,
    };
  }
  // Credentials in the URL are kept apart: only the fetcher reads them (docs/API.md, data sources).
  const { url, credentials } = splitCredentials(b.url as string);
  return {
    ...base,
    type,
    derivedName: url.slice(0, 200),
    url,
    urlCredentials: credentials,
    contentHash: null,
    metadata,
    fetch: fetch.settings,
  };
}
