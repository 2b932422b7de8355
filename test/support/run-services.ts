/**
 * The services one whole run of the suite shares (scripts/test.ts): one PostgreSQL server
 * and one Ceph RGW, started once instead of once per test file, and named to the test
 * processes in environment variables (SHARED_PG_ENV, SHARED_RGW_ENV). Every file still
 * makes its own databases and buckets on them (test/support/postgres.ts, rgw.ts), so
 * files stay apart and run in parallel; a file run alone starts its own as before.
 *
 * A service whose binaries are missing, or that fails to start, is left out: the files
 * that need it then start their own, and skip or fail exactly as they would without
 * the shared one (under CI=true a missing server fails the check tests that ask for it).
 */
import { havePostgres, SHARED_PG_ENV, startPostgres, type TestPostgres } from "./postgres";
import { haveRgw, SHARED_RGW_ENV, startRgw, type TestRgw } from "./rgw";

export interface RunServices {
  /** The variables to hand the test processes. */
  env: Record<string, string>;
  /** Stops whatever was started; safe to call twice. */
  stop(): Promise<void>;
}

/** Every runner's files at once on one server: room for several replicas' pools side by side. */
const PG_SETTINGS = ["max_connections=400"];
/** Every object the run writes stays in the gateway's memory until the run ends. */
const RGW_BYTES = 8 * 2 ** 30;

export async function startRunServices(): Promise<RunServices> {
  const started = Date.now();
  const [pg, rgw] = await Promise.all([
    process.env[SHARED_PG_ENV] || !havePostgres
      ? null
      : attempt("PostgreSQL", () => startPostgres({ own: true, settings: PG_SETTINGS })),
    process.env[SHARED_RGW_ENV.endpoint] || !haveRgw
      ? null
      : attempt("Ceph RGW", () => startRgw({ own: true, memoryBytes: RGW_BYTES })),
  ]);
  const env: Record<string, string> = {};
  if (pg) env[SHARED_PG_ENV] = pg.url;
  if (rgw) {
    env[SHARED_RGW_ENV.endpoint] = rgw.storage.endpoint ?? "";
    env[SHARED_RGW_ENV.accessKeyId] = rgw.storage.accessKeyId ?? "";
    env[SHARED_RGW_ENV.secretAccessKey] = rgw.storage.secretAccessKey ?? "";
  }
  const names = [pg && "PostgreSQL", rgw && "Ceph RGW"].filter(Boolean);
  if (names.length) console.log(`suite: shared ${names.join(" and ")} up in ${Date.now() - started} ms`);
  let stopping: Promise<unknown> | null = null;
  return {
    env,
    stop: async () => {
      stopping ??= Promise.allSettled([pg?.stop(), rgw?.stop()]);
      await stopping;
    },
  };
}

async function attempt<T extends TestPostgres | TestRgw>(name: string, start: () => Promise<T>): Promise<T | null> {
  try {
    return await start();
  } catch (err) {
    console.error(`suite: the shared ${name} did not start; each file needing it starts its own: ${String(err)}`);
    return null;
  }
}
