/**
 * The scheduler claims no more queued tasks than the pool has room for: a claim it must
 * give back has read its documents and texts and built their jobs for nothing, and
 * every ending of a small document asks for a claim. Counted with a trigger on the real
 * database: a task going from processing back to queued is a claim given back.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { DocumentsFixture } from "./support/documents";
import { waitFor } from "./support/ingest";

const f = new DocumentsFixture();
beforeAll(() => f.open({ workers: 1 }));
afterAll(() => f.close());

test("a burst larger than the pool is claimed as room frees, with no claim given back", async () => {
  const c = f.t.services.db.reader.$client;
  // A temporary trigger lives on its connection: it is made on the one every write goes through.
  await f.t.services.db.atomically((tx) => {
    tx.$client.exec("CREATE TABLE given_back (task_id TEXT)");
    tx.$client.exec(`CREATE TEMP TRIGGER count_given_back AFTER UPDATE OF status ON tasks
    WHEN OLD.status = 'processing' AND NEW.status = 'queued' BEGIN INSERT INTO given_back VALUES (NEW.id); END`);
  });
  // One worker holds 256 small documents at once (pool.ts, jobWeight): 700 need several rounds.
  const ids = Array.from({ length: 700 }, (_, i) => `burst-${i}`);
  const r = await f.t.call("POST", "/api/rag/documents/batch", {
    headers: f.auth(),
    body: { documents: ids.map((externalId) => ({ externalId, type: "text", content: `burst text ${externalId}` })) },
  });
  expect(r.status).toBe(200);
  const states = () =>
    c.query("SELECT status, count(*) AS n FROM documents WHERE external_id LIKE 'burst-%' GROUP BY status").all();
  await waitFor(
    "every document to be ready",
    async () => {
      const s = states() as { status: string; n: number }[];
      return s.length === 1 && s[0]!.status === "ready";
    },
    120_000,
  );
  expect(states()).toEqual([{ status: "ready", n: 700 }]);
  expect(c.query("SELECT count(*) AS n FROM given_back").get()).toEqual({ n: 0 });
  // Each document was claimed once: one task, one attempt, one processing event.
  expect(c.query("SELECT status, attempts, count(*) AS n FROM tasks GROUP BY status, attempts").all()).toEqual([
    { status: "succeeded", attempts: 1, n: 700 },
  ]);
}, 180_000);
