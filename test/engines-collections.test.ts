/**
 * Collections with their derived stats, API keys, the administration's guarded changes and
 * audit log, and evaluation sets and runs (db/repo/{collections,api-keys,admin,evals}.ts)
 * through the same repository functions on SQLite and PostgreSQL (support/engines.ts): what
 * each call returns, on both engines. The administration's cases run first in each
 * engine's database, so its first seeded user is the install's only administrator.
 */
import { afterAll, expect, test } from "bun:test";
import {
  collectionIdsOf,
  collectionOwnerActive,
  deleteUserRow,
  findUserWithStats,
  insertAudit,
  listAudit,
  listUsersWithStats,
  updateUserAdmin,
  updateUserDisabled,
  updateUserPassword,
  updateUserTierById,
} from "../src/db/repo/admin";
import {
  deleteApiKey,
  findApiKey,
  findApiKeyByHash,
  insertApiKey,
  listApiKeys,
  touchApiKeys,
} from "../src/db/repo/api-keys";
import {
  countCollections,
  deleteCollectionRow,
  findCollection,
  findCollectionById,
  findOwnedCollection,
  insertCollection,
  listCollectionModels,
  listCollections,
  updateCollection,
} from "../src/db/repo/collections";
import { findDocumentById, insertDocument } from "../src/db/repo/documents";
import {
  countEvalSets,
  deleteEvalSet,
  findEvalSet,
  insertEvalRun,
  insertEvalSet,
  latestEvalRuns,
  listEvalRuns,
  listEvalSets,
  listGatedCollectionIds,
} from "../src/db/repo/evals";
import type { DocumentRow } from "../src/db/schema";
import { documentRow, openEngines, seedPipeline } from "./support/engines";
import { havePostgres } from "./support/postgres";

const { engines, close } = await openEngines();
afterAll(close);

const at = (s: number) => new Date(Date.UTC(2030, 0, 1) + s * 1000).toISOString();

/** A document row of `collectionId` with the given fields, named after its id. */
const doc = (collectionId: string, fields: Partial<DocumentRow> & { id: string }) =>
  documentRow(collectionId, { name: fields.id, ...fields }, at(0));

for (const { name, store } of engines) {
  test(`${name}: an install keeps one enabled administrator; users are listed with their counts`, async () => {
    const a = await seedPipeline(store);
    const b = await seedPipeline(store);
    await store.atomically((tx) =>
      insertDocument(tx, doc(a.collectionId, { id: `${name}-adm-d1`, status: "ready", chunkCount: 7 })),
    );
    await store.atomically((tx) =>
      insertDocument(tx, doc(a.collectionId, { id: `${name}-adm-d2`, status: "ready", chunkCount: 5 })),
    );
    const admin = () => store.atomically((tx) => updateUserAdmin(tx, a.userId, false));
    expect(await admin()).toBe("last_admin");
    expect(await store.atomically((tx) => updateUserDisabled(tx, a.userId, at(1)))).toBe("last_admin");
    expect(await store.atomically((tx) => updateUserAdmin(tx, "nobody", true))).toBe("missing");
    expect(await store.atomically((tx) => updateUserDisabled(tx, "nobody", at(1)))).toBe("missing");
    expect(await store.atomically((tx) => updateUserAdmin(tx, b.userId, true))).toBe("ok");
    expect(await admin()).toBe("ok");
    // b is the last enabled administrator now.
    expect(await store.atomically((tx) => updateUserDisabled(tx, b.userId, at(2)))).toBe("last_admin");
    expect(await store.atomically((tx) => updateUserDisabled(tx, a.userId, at(3)))).toBe("ok");
    // A user already disabled keeps the time it was first disabled.
    expect(await store.atomically((tx) => updateUserDisabled(tx, a.userId, at(4)))).toBe("ok");
    expect((await findUserWithStats(store.reader, a.userId))?.user.disabledAt).toBe(at(3));
    expect(await collectionOwnerActive(store.reader, a.collectionId)).toBe(false);
    expect(await collectionOwnerActive(store.reader, b.collectionId)).toBe(true);
    expect(await collectionOwnerActive(store.reader, "no-such-collection")).toBe(false);
    expect(await store.atomically((tx) => updateUserDisabled(tx, a.userId, null))).toBe("ok");
    expect(await collectionOwnerActive(store.reader, a.collectionId)).toBe(true);

    await store.atomically(async (tx) => {
      await updateUserTierById(tx, a.userId, "pro");
      await updateUserPassword(tx, a.userId, "new-hash", true);
    });
    const stats = await findUserWithStats(store.reader, a.userId);
    expect([stats?.user.tier, stats?.user.passwordHash, stats?.user.mustChangePassword, stats?.user.isAdmin]).toEqual([
      "pro",
      "new-hash",
      true,
      false,
    ]);
    expect([stats?.pipelineCount, stats?.chunkCount, stats?.user.disabledAt]).toEqual([1, 12, null]);
    expect(await findUserWithStats(store.reader, "nobody")).toBeUndefined();
    const all = (await listUsersWithStats(store.reader)).filter((u) => [a.userId, b.userId].includes(u.user.id));
    expect(all.map((u) => [u.user.id, u.user.isAdmin, u.pipelineCount, u.chunkCount])).toEqual([
      [a.userId, false, 1, 12],
      [b.userId, true, 1, 0],
    ]);
    expect(await collectionIdsOf(store.reader, a.userId)).toEqual([a.collectionId]);
    await store.atomically((tx) => deleteUserRow(tx, a.userId));
    expect(await findUserWithStats(store.reader, a.userId)).toBeUndefined();
    expect(await collectionIdsOf(store.reader, a.userId)).toEqual([]);
    expect(await findDocumentById(store.reader, `${name}-adm-d1`)).toBeUndefined();
  });

  test(`${name}: audit entries page newest first below an id, oldest first above one`, async () => {
    await store.atomically(async (tx) => {
      for (let i = 1; i <= 5; i++)
        await insertAudit(tx, {
          at: at(i),
          actorId: null,
          actor: "cli (root)",
          action: `a${i}`,
          targetId: null,
          targetEmail: null,
          details: JSON.stringify({ i }),
        });
    });
    const newest = await listAudit(store.reader, { limit: 3 });
    expect(newest.map((r) => r.action)).toEqual(["a5", "a4", "a3"]);
    expect(newest.every((r) => typeof r.id === "number")).toBe(true);
    expect(newest[0]?.details).toBe('{"i":5}');
    const older = await listAudit(store.reader, { limit: 3, before: newest[2]!.id });
    expect(older.map((r) => r.action)).toEqual(["a2", "a1"]);
    const after = await listAudit(store.reader, { limit: 2, after: older[1]!.id });
    expect(after.map((r) => r.action)).toEqual(["a2", "a3"]);
  });

  test(`${name}: collections with their derived status and counts, listed, searched, paged and counted`, async () => {
    const { userId, collectionId: first } = await seedPipeline(store);
    const c = (s: string) => `${name}-col-${s}`;
    const base = {
      userId,
      kind: "pipeline" as const,
      description: null,
      chunkingStrategy: "recursive",
      chunkSize: 500,
      chunkOverlap: 50,
      embeddingModel: "builtin",
      indexModel: "builtin",
      vectorProvider: "lancedb",
      retrievalTopK: 5,
    };
    await store.atomically(async (tx) => {
      await insertCollection(tx, {
        ...base,
        id: c("a"),
        name: "Alpha Docs",
        createdAt: at(1),
        updatedAt: at(1),
        ocrLanguages: ["eng", "deu"],
      });
      await insertCollection(tx, {
        ...base,
        id: c("b"),
        name: "beta",
        createdAt: at(2),
        updatedAt: at(2),
        hybridAlpha: 0.25,
      });
      await insertCollection(tx, { ...base, id: c("c"), name: "GAMMA docs", createdAt: at(3), updatedAt: at(3) });
      await insertCollection(tx, {
        ...base,
        id: c("k"),
        kind: "kb",
        name: "kb docs",
        createdAt: at(4),
        updatedAt: at(4),
      });
      // a: ready (two documents, 3 + 4 chunks); b: processing; c: error; the seeded one: empty.
      await insertDocument(tx, doc(c("a"), { id: `${c("a")}-1`, status: "ready", chunkCount: 3 }));
      await insertDocument(tx, doc(c("a"), { id: `${c("a")}-2`, status: "ready", chunkCount: 4 }));
      await insertDocument(tx, doc(c("b"), { id: `${c("b")}-1`, status: "ready", chunkCount: 2 }));
      await insertDocument(tx, doc(c("b"), { id: `${c("b")}-2`, status: "processing" }));
      await insertDocument(tx, doc(c("b"), { id: `${c("b")}-3`, status: "failed" }));
      await insertDocument(tx, doc(c("c"), { id: `${c("c")}-1`, status: "failed" }));
    });
    const a = await findCollection(store.reader, userId, "pipeline", c("a"));
    expect([a?.status, a?.sourceCount, a?.chunkCount, a?.row.name, a?.row.ocrLanguages]).toEqual([
      "ready",
      2,
      7,
      "Alpha Docs",
      ["eng", "deu"],
    ]);
    const b = await findCollection(store.reader, userId, "pipeline", c("b"));
    expect([b?.status, b?.sourceCount, b?.chunkCount, b?.row.hybridAlpha]).toEqual(["processing", 3, 2, 0.25]);
    expect(await findCollection(store.reader, userId, "kb", c("a"))).toBeUndefined();
    expect(await findCollection(store.reader, "someone-else", "pipeline", c("a"))).toBeUndefined();

    expect((await findOwnedCollection(store.reader, userId, "pipeline", c("c")))?.name).toBe("GAMMA docs");
    expect(await findOwnedCollection(store.reader, userId, "kb", c("c"))).toBeUndefined();
    expect((await findCollectionById(store.reader, c("k")))?.kind).toBe("kb");
    expect(await findCollectionById(store.reader, c("none"))).toBeUndefined();

    const list = await listCollections(store.reader, { userId, kind: "pipeline", limit: 10, offset: 0 });
    expect([list.total, list.rows.map((r) => [r.row.id, r.status, r.sourceCount, r.chunkCount])]).toEqual([
      4,
      [
        [c("c"), "error", 1, 0],
        [c("b"), "processing", 3, 2],
        [c("a"), "ready", 2, 7],
        [first, "empty", 0, 0],
      ],
    ]);
    const paged = await listCollections(store.reader, { userId, kind: "pipeline", limit: 2, offset: 1 });
    expect([paged.total, paged.rows.map((r) => r.row.id)]).toEqual([4, [c("b"), c("a")]]);
    const search = await listCollections(store.reader, {
      userId,
      kind: "pipeline",
      search: "DOCS",
      limit: 10,
      offset: 0,
    });
    expect([search.total, search.rows.map((r) => r.row.id)]).toEqual([2, [c("c"), c("a")]]);
    for (const status of ["empty", "processing", "error", "ready"] as const) {
      const only = await listCollections(store.reader, { userId, kind: "pipeline", status, limit: 10, offset: 0 });
      expect([status, only.total, only.rows.map((r) => r.status)]).toEqual([status, 1, [status]]);
    }
    const kbs = await listCollections(store.reader, { userId, kind: "kb", search: "kb", limit: 10, offset: 0 });
    expect([kbs.total, kbs.rows.map((r) => [r.row.id, r.status])]).toEqual([1, [[c("k"), "empty"]]]);
    expect(await countCollections(store.reader, userId, "pipeline")).toBe(4);
    expect(await countCollections(store.reader, userId, "kb")).toBe(1);
    expect(await countCollections(store.reader, "nobody", "kb")).toBe(0);

    await store.atomically((tx) =>
      updateCollection(tx, c("a"), {
        name: "Renamed",
        buildingModel: "next-model",
        buildingGeneration: 2,
        updatedAt: at(9),
      }),
    );
    const renamed = await findCollectionById(store.reader, c("a"));
    expect([renamed?.name, renamed?.buildingGeneration, renamed?.updatedAt]).toEqual(["Renamed", 2, at(9)]);
    expect(await listCollectionModels(store.reader)).toContainEqual({
      embeddingModel: "builtin",
      indexModel: "builtin",
      buildingModel: "next-model",
    });
    await store.atomically((tx) => deleteCollectionRow(tx, c("a")));
    expect(await findCollectionById(store.reader, c("a"))).toBeUndefined();
    expect(await findDocumentById(store.reader, `${c("a")}-1`)).toBeUndefined();
    expect(await countCollections(store.reader, userId, "pipeline")).toBe(3);
  });

  test(`${name}: API keys by id and by hash with their pipeline, touched and deleted`, async () => {
    const { collectionId } = await seedPipeline(store);
    const k = (s: string) => `${name}-key-${s}`;
    const key = (id: string) => ({
      id,
      collectionId,
      name: `name ${id}`,
      prefix: "rk_",
      keyHash: `hash-${id}`,
      createdAt: at(0),
      lastUsedAt: null,
      scopes: '["query","ingest"]',
      expiresAt: null,
      filter: null,
      tokenSecret: null,
    });
    await store.atomically(async (tx) => {
      await insertApiKey(tx, key(k("1")));
      await insertApiKey(tx, key(k("2")));
    });
    expect((await listApiKeys(store.reader, collectionId)).map((r) => r.id)).toEqual([k("2"), k("1")]);
    expect(await findApiKey(store.reader, collectionId, k("1"))).toEqual(key(k("1")));
    expect(await findApiKey(store.reader, "other", k("1"))).toBeUndefined();
    const found = await findApiKeyByHash(store.reader, `hash-${k("2")}`);
    expect([found?.key.id, found?.collection.id, found?.collection.kind]).toEqual([k("2"), collectionId, "pipeline"]);
    expect(await findApiKeyByHash(store.reader, "hash-none")).toBeUndefined();
    await store.atomically((tx) =>
      touchApiKeys(
        tx,
        new Map([
          [k("1"), at(5)],
          [k("2"), at(6)],
        ]),
      ),
    );
    expect((await listApiKeys(store.reader, collectionId)).map((r) => r.lastUsedAt)).toEqual([at(6), at(5)]);
    await store.atomically((tx) => deleteApiKey(tx, k("2")));
    expect((await listApiKeys(store.reader, collectionId)).map((r) => r.id)).toEqual([k("1")]);
  });

  test(`${name}: evaluation sets and runs: counted, found, the newest N runs kept, gates listed`, async () => {
    const { collectionId } = await seedPipeline(store);
    const other = await seedPipeline(store);
    const s = (x: string) => `${name}-set-${x}`;
    const set = (id: string, cid = collectionId) => ({
      id,
      collectionId: cid,
      name: id,
      queries: '[{"query":"q","expectedSourceIds":["d"]}]',
      createdAt: at(0),
      updatedAt: at(0),
    });
    await store.atomically(async (tx) => {
      await insertEvalSet(tx, set(s("1")));
      await insertEvalSet(tx, set(s("2")));
      await insertEvalSet(tx, set(s("3"), other.collectionId));
    });
    expect((await listEvalSets(store.reader, collectionId)).map((r) => r.id)).toEqual([s("2"), s("1")]);
    expect(await countEvalSets(store.reader, collectionId)).toBe(2);
    expect(await countEvalSets(store.reader, "no-collection")).toBe(0);
    expect(await findEvalSet(store.reader, collectionId, s("1"))).toEqual(set(s("1")));
    expect(await findEvalSet(store.reader, collectionId, s("3"))).toBeUndefined();

    const run = (id: string, setId: string) => ({
      id,
      setId,
      kind: "run" as const,
      result: '{"recall":1}',
      createdAt: at(0),
    });
    for (let i = 1; i <= 5; i++) await store.atomically((tx) => insertEvalRun(tx, run(`${s("1")}-r${i}`, s("1")), 3));
    await store.atomically((tx) => insertEvalRun(tx, run(`${s("2")}-r1`, s("2")), 3));
    expect((await listEvalRuns(store.reader, s("1"), 10)).map((r) => r.id)).toEqual([
      `${s("1")}-r5`,
      `${s("1")}-r4`,
      `${s("1")}-r3`,
    ]);
    expect((await listEvalRuns(store.reader, s("1"), 1))[0]).toEqual(run(`${s("1")}-r5`, s("1")));
    const latest = await latestEvalRuns(store.reader, [s("1"), s("2"), s("3")]);
    expect([...latest].map(([set, r]) => [set, r.id])).toEqual([
      [s("1"), `${s("1")}-r5`],
      [s("2"), `${s("2")}-r1`],
    ]);

    await store.atomically((tx) => updateCollection(tx, other.collectionId, { reindexGate: s("3") }));
    const gated = await listGatedCollectionIds(store.reader);
    expect(gated).toContain(other.collectionId);
    expect(gated).not.toContain(collectionId);

    await store.atomically((tx) => deleteEvalSet(tx, s("1")));
    expect(await findEvalSet(store.reader, collectionId, s("1"))).toBeUndefined();
    expect(await listEvalRuns(store.reader, s("1"), 10)).toEqual([]);
    expect(await countEvalSets(store.reader, collectionId)).toBe(1);
  });
}

test("both engines ran where PostgreSQL is installed", () => {
  expect(engines.map((e) => e.name)).toEqual(havePostgres ? ["sqlite", "postgres"] : ["sqlite"]);
});
