/**
 * Migrations on a data directory made by an older ragd: what was stored before
 * an upgrade is still there, in its new place, after it.
 */
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { migrate } from "../src/db/client";
import { migrations } from "../src/db/migrations/index";
import { tempDir } from "./support/app";

const dir = tempDir("ragd-migrate-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("text sources stored with their content in the documents row move to document_texts, with their length", () => {
  const sqlite = new Database(join(dir, "ragd.db"), { create: true, strict: true });
  const before = migrations.findIndex((m) => m.tag.startsWith("0003_"));
  expect(before).toBeGreaterThan(0);
  migrate(sqlite, migrations.slice(0, before));
  // Astral characters count twice in JavaScript (and in the API), once in SQLite's length().
  const text = "ünïcode text with 😀 in it ".repeat(400);
  sqlite.exec(
    "INSERT INTO users (id, email, password_hash, tier, created_at) VALUES ('u', 'a@example.com', 'x', 'free', 'now')",
  );
  sqlite.exec(
    `INSERT INTO collections (id, user_id, kind, name, chunking_strategy, chunk_size, chunk_overlap, embedding_model, vector_provider, retrieval_top_k, created_at, updated_at)
     VALUES ('c', 'u', 'pipeline', 'p', 'recursive', 1000, 200, 'builtin', 'lancedb', 5, 'now', 'now')`,
  );
  const insert = sqlite.prepare(
    "INSERT INTO documents (id, collection_id, type, name, content, url, status, created_at, updated_at) VALUES (?, 'c', ?, 'n', ?, ?, 'ready', 'now', 'now')",
  );
  insert.run("d-text", "text", text, null);
  insert.run("d-url", "url", null, "https://example.com/");

  migrate(sqlite);

  expect(sqlite.query("SELECT document_id, content FROM document_texts").all()).toEqual([
    { document_id: "d-text", content: text },
  ]);
  const lengths = sqlite.query("SELECT id, content_length FROM documents ORDER BY id").all();
  expect(lengths).toEqual([
    { id: "d-text", content_length: text.length },
    { id: "d-url", content_length: null },
  ]);
  const columns = sqlite
    .query("SELECT name FROM pragma_table_info('documents')")
    .all()
    .map((r: any) => r.name);
  expect(columns).not.toContain("content");
  // Applying again changes nothing.
  migrate(sqlite);
  expect(sqlite.query("SELECT count(*) AS n FROM document_texts").get()).toEqual({ n: 1 });
  sqlite.close();
});

test("url and api sources stored with credentials in their URL keep them apart after the upgrade", () => {
  const sqlite = new Database(join(dir, "creds.db"), { create: true, strict: true });
  const before = migrations.findIndex((m) => m.tag.startsWith("0005_"));
  expect(before).toBeGreaterThan(0);
  migrate(sqlite, migrations.slice(0, before));
  sqlite.exec(
    "INSERT INTO users (id, email, password_hash, tier, created_at) VALUES ('u', 'a@example.com', 'x', 'free', 'now')",
  );
  sqlite.exec(
    `INSERT INTO collections (id, user_id, kind, name, chunking_strategy, chunk_size, chunk_overlap, embedding_model, vector_provider, retrieval_top_k, created_at, updated_at)
     VALUES ('c', 'u', 'pipeline', 'p', 'recursive', 1000, 200, 'builtin', 'lancedb', 5, 'now', 'now')`,
  );
  const insert = sqlite.prepare(
    "INSERT INTO documents (id, collection_id, type, name, url, status, created_at, updated_at) VALUES (?, 'c', ?, ?, ?, 'ready', 'now', 'now')",
  );
  const long = `https://u:pw@example.com/${"a".repeat(300)}`;
  const rows: [string, string, string, string, string, string, string | null][] = [
    // id, type, stored name, stored url → name, url, credentials after
    [
      "1",
      "url",
      "http://u:pw@wiki.corp/a",
      "http://u:pw@wiki.corp/a",
      "http://wiki.corp/a",
      "http://wiki.corp/a",
      "u:pw",
    ],
    [
      "2",
      "api",
      "Inventory",
      "https://t%40x:p%3Aw@api.corp/v1?q=a@b",
      "Inventory",
      "https://api.corp/v1?q=a@b",
      "t%40x:p%3Aw",
    ],
    ["3", "url", long.slice(0, 200), long, long.replace("u:pw@", "").slice(0, 200), long.replace("u:pw@", ""), "u:pw"],
    ["4", "url", "plain", "https://example.com/a@b", "plain", "https://example.com/a@b", null],
    ["5", "url", "token", "https://tok@example.com/", "token", "https://example.com/", "tok"],
  ];
  for (const [id, type, name, url] of rows) insert.run(id, type, name, url);

  migrate(sqlite);

  const after = sqlite.query("SELECT id, name, url, url_credentials FROM documents ORDER BY id").all();
  expect(after).toEqual(rows.map(([id, , , , name, url, creds]) => ({ id, name, url, url_credentials: creds })));
  sqlite.close();
});

test("an upgraded install makes its oldest account the administrator, and only that one", () => {
  const sqlite = new Database(join(dir, "admin.db"), { create: true, strict: true });
  const before = migrations.findIndex((m) => m.tag.startsWith("0008_"));
  expect(before).toBeGreaterThan(0);
  migrate(sqlite, migrations.slice(0, before));
  const insert = sqlite.prepare(
    "INSERT INTO users (id, email, password_hash, tier, created_at) VALUES (?, ?, 'x', 'free', ?)",
  );
  // Inserted out of order: the oldest by created_at wins, not the first row.
  insert.run("newer", "newer@example.com", "2026-03-01T00:00:00.000Z");
  insert.run("oldest", "oldest@example.com", "2025-01-01T00:00:00.000Z");
  insert.run("middle", "middle@example.com", "2025-06-01T00:00:00.000Z");

  migrate(sqlite);

  const rows = sqlite.query(
    "SELECT id, is_admin, disabled_at, last_sign_in_at, must_change_password FROM users ORDER BY id",
  );
  const old = { disabled_at: null, last_sign_in_at: null, must_change_password: 0 };
  expect(rows.all()).toEqual([
    { id: "middle", is_admin: 0, ...old },
    { id: "newer", is_admin: 0, ...old },
    { id: "oldest", is_admin: 1, ...old },
  ]);
  expect(sqlite.query("SELECT count(*) AS n FROM audit_log").get()).toEqual({ n: 0 });
  sqlite.close();
});
