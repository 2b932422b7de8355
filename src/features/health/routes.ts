/** GET /healthz (alive), GET /readyz (can serve), GET /metrics (Prometheus). */
import { Elysia, t } from "elysia";
import type { Config } from "../../config";
import { type ObjectStorage, objectStorage } from "../../config-storage";
import { storeFails } from "../../files/probe";
import { isPg, selectRows } from "../../db/dialect";
import type { Store } from "../../db/store";
import { checkBackends } from "../../embed/health";
import { modelsInUse } from "../../ingest/generations";
import type { Metrics } from "../../http/metrics";
import { diskFullMessage, freeMb } from "../../tools/disk";
import { scrubMessage } from "../../tools/scrub";
import type { LanceConnection } from "../../vectors/connection";

const Check = t.Object({ name: t.String(), ok: t.Boolean(), error: t.Optional(t.String()) });

async function readiness(db: Store, lance: LanceConnection, config: Config) {
  const checks: { name: string; ok: boolean; error?: string }[] = [];
  const engine = isPg(db.reader) ? "postgresql" : "sqlite";
  // A database that does not answer within 2 s is not ready either.
  let timer: Timer | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("no answer within 2 s")), 2000);
  });
  try {
    await Promise.race([selectRows(db.reader, { sqlite: "SELECT 1", pg: "SELECT 1" }), late]);
    checks.push({ name: engine, ok: true });
  } catch (err) {
    checks.push({ name: engine, ok: false, error: scrubMessage((err as Error).message, config.dataDir) });
  } finally {
    clearTimeout(timer);
  }
  const databaseOk = checks[0]!.ok;
  const storage = objectStorage(config);
  const store = storage ? await storeCheck(storage) : null;
  if (store) checks.push(store);
  if (store?.ok === false) {
    // LanceDB's client retries an unreachable store for minutes: it is not asked.
    checks.push({ name: "lancedb", ok: false, error: "its tables are in the object store, which does not answer" });
  } else {
    try {
      await lance.tableNames();
      checks.push({ name: "lancedb", ok: true });
    } catch (err) {
      checks.push({ name: "lancedb", ok: false, error: scrubMessage((err as Error).message, config.dataDir) });
    }
  }
  checks.push(diskCheck(config));
  // The models in use are the database's to say: without it, their backends go unasked.
  for (const b of databaseOk ? await checkBackends(await modelsInUse(db.reader), config) : []) {
    checks.push({ name: `embedding: ${b.backend}`, ok: b.ok, ...(b.error ? { error: b.error } : {}) });
  }
  return checks;
}

/** How long /readyz waits for the object store. */
const STORE_TIMEOUT_MS = 3000;

/** The object store of RAGD_STORAGE_URL answers a listing of ragd's prefix with ragd's keys. */
async function storeCheck(storage: ObjectStorage): Promise<{ name: string; ok: boolean; error?: string }> {
  const why = await storeFails(storage, STORE_TIMEOUT_MS);
  return why === null ? { name: "object storage", ok: true } : { name: "object storage", ok: false, error: why };
}

/** Not ready while the data directory's disk has less than RAGD_MIN_FREE_MB free. */
function diskCheck(config: Config): { name: string; ok: boolean; error?: string } {
  const free = freeMb(config.dataDir);
  if (free === null || free >= config.minFreeMb) return { name: "disk", ok: true };
  const error = `${diskFullMessage(config.dataDir, free)}; RAGD_MIN_FREE_MB is ${config.minFreeMb}`;
  return { name: "disk", ok: false, error };
}

export function healthRoutes(db: Store, lance: LanceConnection, config: Config, metrics: Metrics) {
  return new Elysia({ tags: ["Operations"] })
    .get("/healthz", () => ({ status: "ok" as const }), {
      response: t.Object({ status: t.Literal("ok") }),
      detail: { summary: "The process is up", security: [] },
    })
    .get(
      "/readyz",
      async ({ set }) => {
        const checks = await readiness(db, lance, config);
        const ok = checks.every((c) => c.ok);
        if (!ok) set.status = 503;
        return { status: ok ? ("ready" as const) : ("unavailable" as const), checks };
      },
      {
        response: {
          200: t.Object({ status: t.Literal("ready"), checks: t.Array(Check) }),
          503: t.Object({ status: t.Literal("unavailable"), checks: t.Array(Check) }),
        },
        detail: {
          summary:
            "SQLite, the object store (with RAGD_STORAGE_URL), LanceDB, free disk space and the embedding backends of pipelines in use",
          security: [],
        },
      },
    )
    .get(
      "/metrics",
      async ({ set }) => {
        set.headers["content-type"] = "text/plain; version=0.0.4; charset=utf-8";
        return await metrics.render();
      },
      { detail: { summary: "Prometheus metrics", security: [] } },
    );
}
