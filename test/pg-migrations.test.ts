/**
 * The PostgreSQL migrations embedded in the binary, on a real PostgreSQL server started
 * here: after them the database is exactly the schema derived from schema.ts; runners
 * starting at once (in one process, and as `ragd migrate` processes) apply each migration
 * once; a failing migration leaves nothing behind.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { drizzle } from "drizzle-orm/bun-sql";
import type { PgDatabase } from "drizzle-orm/pg-core";
import { pgSchema } from "../src/db/pg-schema";
import { migratePostgres } from "../src/db/pg-migrate";
import { migrations } from "../src/db/migrations-pg/index";
import { BINARY, ensureBinary } from "./support/binary";
import { pushSchema } from "./support/drizzle-kit";
import { havePostgres, NO_POSTGRES, startPostgres, type TestPostgres } from "./support/postgres";

if (!havePostgres) console.log(`PostgreSQL migration tests skipped: ${NO_POSTGRES}`);

const TAGS = migrations.map((m) => m.tag);

/** What drizzle-kit would change to make `client`'s database the derived schema (our tag table aside). */
async function differences(client: SQL): Promise<string[]> {
  const db = drizzle({ client });
  // drizzle-kit reads `.rows` of a query's result, as node-postgres returns it; Bun.SQL returns the rows.
  const asNodePg = { execute: async (q: Parameters<typeof db.execute>[0]) => ({ rows: await db.execute(q) }) };
  const push = await pushSchema(pgSchema, asNodePg as unknown as PgDatabase<never>, ["public"], ["!_migrations"]);
  return push.statementsToExecute;
}

const recorded = async (client: SQL) =>
  ((await client`SELECT tag FROM _migrations ORDER BY tag`) as { tag: string }[]).map((r) => r.tag);

describe.skipIf(!havePostgres)("PostgreSQL migrations", () => {
  let pg: TestPostgres;
  const clients: SQL[] = [];
  const open = (url: string) => {
    const c = new SQL(url, { max: 2 });
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);

  afterAll(async () => {
    for (const c of clients) await c.close();
    await pg?.stop();
  });

  test("applied to an empty database, they make exactly the schema derived from schema.ts", async () => {
    const client = open(await pg.createDatabase("fresh"));
    expect(await migratePostgres(client)).toEqual({ applied: TAGS, unknown: [] });
    expect(await differences(client)).toEqual([]);
    expect(await recorded(client)).toEqual(TAGS);
    // Run again: nothing to do.
    expect(await migratePostgres(client)).toEqual({ applied: [], unknown: [] });
    // The comparison sees a difference where there is one.
    await client`DROP INDEX documents_collection_idx`;
    expect((await differences(client)).join("\n")).toContain("documents_collection_idx");
  }, 60_000);

  test("four runners starting at once apply each migration once, and all succeed", async () => {
    const url = await pg.createDatabase("race");
    const runners = [1, 2, 3, 4].map(() => open(url));
    const results = await Promise.all(runners.map((c) => migratePostgres(c)));
    expect(results.flatMap((r) => r.applied).sort()).toEqual(TAGS);
    expect(await recorded(runners[0]!)).toEqual(TAGS);
    expect(await differences(runners[0]!)).toEqual([]);
  }, 60_000);

  test("a migration that fails leaves nothing of itself behind, and is not recorded", async () => {
    const client = open(await pg.createDatabase("failing"));
    await migratePostgres(client);
    const bad = {
      tag: "9999_bad",
      sql: "CREATE TABLE half (id integer);--> statement-breakpoint\nSELECT * FROM nowhere",
    };
    const err = await migratePostgres(client, [...migrations, bad]).then(
      () => null,
      (e: Error) => e,
    );
    expect(String(err)).toContain("nowhere");
    expect(await client`SELECT to_regclass('half') AS t`).toEqual([{ t: null }]);
    expect(await recorded(client)).toEqual(TAGS);
  }, 60_000);

  test("a database migrated by a newer ragd is reported, not touched", async () => {
    const client = open(await pg.createDatabase("newer"));
    await migratePostgres(client);
    await client`INSERT INTO _migrations (tag, applied_at) VALUES ('9999_from_the_future', 'now')`;
    expect(await migratePostgres(client)).toEqual({ applied: [], unknown: ["9999_from_the_future"] });
  }, 60_000);
});

describe.skipIf(!havePostgres)("ragd migrate", () => {
  let pg: TestPostgres;

  beforeAll(async () => {
    await ensureBinary();
    pg = await startPostgres();
  }, 180_000);

  afterAll(async () => {
    await pg?.stop();
  });

  const migrate = async (args: string[]) => {
    const p = Bun.spawn([BINARY, "migrate", ...args], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const timer = setTimeout(() => p.kill("SIGKILL"), 30_000);
    const code = await p.exited;
    clearTimeout(timer);
    return { code, stdout: await new Response(p.stdout).text(), stderr: await new Response(p.stderr).text() };
  };

  test("two processes at once: both succeed, each migration is applied once, no password shown", async () => {
    // The test server trusts loopback, so the password is never asked for; it must still never be shown.
    const url = (await pg.createDatabase("binary")).replace("//ragd@", "//ragd:hunter2@");
    const runs = await Promise.all([migrate(["--database-url", url]), migrate(["--database-url", url])]);
    expect(runs.map((r) => r.code)).toEqual([0, 0]);
    const out = runs.map((r) => r.stdout + r.stderr).join("\n");
    expect(out).not.toContain("hunter2");
    // Each migration is its own locked transaction: the two may share them out, but each is
    // applied by exactly one of them, and every line names the server without its password.
    const lines = [...out.matchAll(/^applied (.+) to postgres:\/\/ragd:\*\*\*@/gm)].map((m) => m[1]!.split(", "));
    expect(lines.flat().sort()).toEqual([...TAGS].sort());
    const client = new SQL(url, { max: 1 });
    expect(await recorded(client)).toEqual(TAGS);
    await client.close();
    expect(await migrate(["--database-url", url])).toMatchObject({
      code: 0,
      stdout: expect.stringContaining("is up to date"),
    });
  }, 120_000);

  test("a server that cannot be reached: exit 1, saying so, without the password", async () => {
    const closed = new URL(pg.url);
    closed.port = "1";
    closed.password = "hunter2";
    closed.pathname = "/ragd";
    const r = await migrate(["--database-url", closed.toString()]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("ragd: migrating postgres://ragd:***@127.0.0.1:1/ragd failed");
    expect(r.stderr).not.toContain("hunter2");
    closed.password = "";
    closed.search = "?password=hunter4";
    const inQuery = await migrate(["--database-url", closed.toString()]);
    expect(inQuery.code).toBe(1);
    expect(inQuery.stderr).toContain("ragd: migrating postgres://ragd@127.0.0.1:1/ragd?password=*** failed");
    expect(inQuery.stderr).not.toContain("hunter4");
  }, 60_000);

  test("without a database URL: exit 2, naming the setting", async () => {
    const r = await migrate([]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("RAGD_DATABASE_URL");
  }, 60_000);
});
