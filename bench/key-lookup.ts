/**
 * What an API key check costs without the key cache, which replicas turn off so that a
 * revocation through one holds on all at once (features/keys/service.ts `caching`):
 *
 *   bun bench/key-lookup.ts [--n 2000]
 *
 * Through `KeyService.authorize` on one PostgreSQL database (a throwaway server on
 * loopback), with the cache (a server alone) and without (a replica): p50 and p99 of one
 * check, and the difference, which is what every key-authenticated request pays.
 *
 * Last measured (2 cores, with the test suite running beside it): cached p50 0.045 ms,
 * p99 0.58 ms; uncached p50 0.251 ms, p99 2.6 ms. A quarter of a millisecond per request,
 * against a query on a bucket's tables of 85 ms and more (bench/replicas.ts): no cache,
 * rather than invalidation across processes.
 */
import { parseArgs } from "node:util";
import { openPgStore } from "../src/db/pg-store";
import { KeyService } from "../src/features/keys/service";
import { seedPipeline } from "../test/support/engines";
import { startPostgres } from "../test/support/postgres";
import { percentile } from "./support";

const { values: args } = parseArgs({ options: { n: { type: "string", default: "2000" } } });
const N = Number(args.n);

const pg = await startPostgres();
try {
  const store = await openPgStore(await pg.createDatabase("ragd_keys"));
  const { collectionId } = await seedPipeline(store);
  const rows: string[] = [];
  for (const caching of [true, false]) {
    const keys = new KeyService(store, caching);
    const { key } = await keys.create(collectionId, "bench", { scopes: ["query"] });
    const auth = `Bearer ${key}`;
    for (let i = 0; i < 100; i++) await keys.authorize(auth, "query"); // warm
    const times: number[] = [];
    for (let i = 0; i < N; i++) {
      const s = performance.now();
      await keys.authorize(auth, "query");
      times.push(performance.now() - s);
    }
    rows.push(
      `${caching ? "cached (a server alone)" : "uncached (a replica)   "}  p50 ${percentile(times, 50).toFixed(3)} ms  p99 ${percentile(times, 99).toFixed(3)} ms`,
    );
  }
  console.log(`API key check on PostgreSQL over loopback, ${N} checks each`);
  for (const r of rows) console.log(r);
  await store.close();
} finally {
  await pg.stop();
}
