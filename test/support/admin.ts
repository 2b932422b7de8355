/**
 * Helpers of the administration tests: a started binary with the calls they make,
 * and the check that nothing of a deleted user is left in the data directory.
 */
import { Database } from "bun:sqlite";
import { expect } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { RunningBinary } from "./binary";

export const PASSWORD = "correct horse battery";

/** The calls the tests make against one running server. */
export function adminCalls(server: RunningBinary) {
  const post = (path: string, jar: { cookie?: string }, json: unknown = {}) =>
    server.http(path, { method: "POST", json, jar });
  return {
    post,
    signIn: (email: string, password: string, jar: { cookie?: string } = {}) =>
      post("/api/auth/login", jar, { email, password }),
    query: (key: string) =>
      server.http("/api/rag/query", {
        method: "POST",
        json: { query: "parking" },
        headers: { authorization: `Bearer ${key}` },
      }),
  };
}

/** Whether the data directory holds a LanceDB table of the collection. */
export function hasVectorTable(dataDir: string, collectionId: string): boolean {
  const hex = collectionId.replace(/-/g, "").toLowerCase();
  return readdirSync(join(dataDir, "lance")).some((t) => t.includes(hex));
}

/** No row, file or vector table of the user or their pipeline is left in the data directory. */
export function expectNothingOf(dataDir: string, userId: string, pipelineId: string): void {
  const db = new Database(join(dataDir, "ragd.db"), { readonly: true });
  try {
    const counts = db
      .query(
        `SELECT (SELECT count(*) FROM users WHERE id = ?1) AS users,
                (SELECT count(*) FROM sessions WHERE user_id = ?1) AS sessions,
                (SELECT count(*) FROM collections WHERE user_id = ?1 OR id = ?2) AS collections,
                (SELECT count(*) FROM documents WHERE collection_id = ?2) AS documents,
                (SELECT count(*) FROM api_keys WHERE collection_id = ?2) AS keys,
                (SELECT count(*) FROM webhooks WHERE collection_id = ?2) AS webhooks,
                (SELECT count(*) FROM tasks WHERE collection_id = ?2) AS tasks`,
      )
      .get(userId, pipelineId);
    expect(counts).toEqual({ users: 0, sessions: 0, collections: 0, documents: 0, keys: 0, webhooks: 0, tasks: 0 });
  } finally {
    db.close();
  }
  expect(existsSync(join(dataDir, "files", pipelineId))).toBe(false);
  expect(hasVectorTable(dataDir, pipelineId)).toBe(false);
}
