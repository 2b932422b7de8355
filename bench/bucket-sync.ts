/**
 * A bucket source of many small objects (docs/API.md, "Bucket sources"), in process, on
 * the Ceph RGW of the tests (test/support/rgw.ts: the run's shared one when named in the
 * environment, else one of its own): the objects are PUT (timed, 32 at a time), then the
 * first sync (every object a new document, embedded by the fake Ollama of the tests,
 * which counts what it embeds), then syncs of the unchanged prefix: wall time, the
 * process's CPU time, and texts embedded (target: none, within 30 s for 10,000 objects).
 *
 *   bun bench/bucket-sync.ts [objects=10000] [workers=2]
 */
import { presignUrl } from "../src/files/presign";
import { DocumentsFixture } from "../test/support/documents";
import { type SyncReportJson, syncTiming } from "./sync-timing";
import { haveRgw, NO_RGW, startRgw } from "../test/support/rgw";

const OBJECTS = Number(process.argv[2] ?? 10_000);
const WORKERS = Number(process.argv[3] ?? 2);
const PUTS_AT_ONCE = 32;

if (!haveRgw) throw new Error(NO_RGW);
const rgw = await startRgw();
const store = await rgw.createBucket("ragd-bench");

const putStarted = performance.now();
for (let i = 0; i < OBJECTS; i += PUTS_AT_ONCE) {
  const batch = Array.from({ length: Math.min(PUTS_AT_ONCE, OBJECTS - i) }, (_, k) => i + k);
  await Promise.all(
    batch.map(async (n) => {
      const key = `share/d${Math.floor(n / 500)}/f${n}.txt`;
      const body = `Object ${n} of the share tells of item ${n} and its neighbours ${n + 1}.`;
      const r = await fetch(presignUrl(store, { method: "PUT", key, expiresInS: 600 }), { method: "PUT", body });
      if (!r.ok) throw new Error(`PUT ${key}: ${r.status}`);
    }),
  );
}
console.log(`${OBJECTS} objects put in ${((performance.now() - putStarted) / 1000).toFixed(1)} s`);

const f = new DocumentsFixture();
await f.open({ fetchAllow: ["127.0.0.1"], workers: WORKERS });

const { synced, measure } = syncTiming(f);

let source = await measure(`first sync of ${OBJECTS} objects`, async () => {
  const r = await f.c.addSource(f.pid, {
    type: "s3",
    endpoint: store.endpoint,
    bucket: store.bucket,
    prefix: "share/",
    accessKeyId: store.accessKeyId,
    secretAccessKey: store.secretAccessKey,
  });
  if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text}`);
  return synced(r.body.id, "");
});
const again = (label: string) =>
  measure(label, async () => {
    const after = (source.syncReport as SyncReportJson).finishedAt;
    await f.c.call("POST", `/api/rag/pipelines/${f.pid}/sources/${source.id}/refetch`);
    return synced(source.id, after);
  });
source = await again("sync of the unchanged prefix");
source = await again("sync of the unchanged prefix, again");

await f.close();
await rgw.stop();
