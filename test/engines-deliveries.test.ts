/**
 * Webhook deliveries claimed before each attempt (claimDelivery in db/repo/events.ts,
 * features/events/deliverer.ts), on SQLite and PostgreSQL: of two claims of one due
 * delivery exactly one wins, a claimed delivery is due again only when its claim runs
 * out, a row changed since the read is not taken, and two deliverers on one database
 * POST each of 20 deliveries exactly once. On PostgreSQL a second store on the same
 * database (a pool of its own) stands for another ragd process. SQLite is one process's
 * alone (a second store in this process would wait on the first's open transaction
 * with the thread blocked), so there the "other" is the same store.
 */
import { afterAll, expect, test } from "bun:test";
import { first, selectRows } from "../src/db/dialect";
import { openPgStore } from "../src/db/pg-store";
import {
  attemptsOf,
  claimDelivery,
  dueDeliveries,
  insertDelivery,
  insertWebhook,
  listDeliveries,
  recordAttempt,
} from "../src/db/repo/events";
import type { Store } from "../src/db/store";
import { WebhookDeliverer } from "../src/features/events/deliverer";
import { createLogger } from "../src/log";
import { type Engine, openEngines, seedPipeline } from "./support/engines";
import { waitFor } from "./support/wait";

const { engines, close } = await openEngines();
/** Per engine, the store another process would use: a second one on PostgreSQL. */
const others = new Map<Engine["name"], Store>();
for (const e of engines) others.set(e.name, e.name === "postgres" ? await secondStore(e) : e.store);
afterAll(async () => {
  for (const e of engines) if (others.get(e.name) !== e.store) await others.get(e.name)?.close();
  await close();
});

/** Opens another store on `e`'s PostgreSQL database, whose address the database itself gives. */
async function secondStore(e: Engine): Promise<Store> {
  const where = first(
    await selectRows<{ db: string; usr: string; host: string; port: number }>(e.store.reader, {
      sqlite: "",
      pg: "SELECT current_database() AS db, current_user AS usr, host(inet_server_addr()) AS host, inet_server_port() AS port",
    }),
  )!;
  return openPgStore(`postgres://${where.usr}@${where.host}:${where.port}/${where.db}`);
}

const at = (ms: number) => new Date(Date.UTC(2030, 0, 1) + ms).toISOString();

/** A webhook of a new pipeline posting to `url`, and `n` deliveries of it due at `due`; their ids. */
async function seedDeliveries(
  store: Store,
  n: number,
  due: string,
  url = "http://127.0.0.1:9/hook",
): Promise<{ webhookId: string; ids: string[] }> {
  const { collectionId } = await seedPipeline(store);
  const webhookId = Bun.randomUUIDv7();
  const ids = Array.from({ length: n }, () => Bun.randomUUIDv7());
  await store.atomically(async (tx) => {
    await insertWebhook(tx, {
      id: webhookId,
      collectionId,
      url,
      events: null,
      description: null,
      secret: "whsec_test",
      createdAt: due,
    });
    for (const [i, id] of ids.entries()) {
      const payload = JSON.stringify({ id: i + 1, type: "source.ready", n: i });
      await insertDelivery(tx, { id, webhookId, eventId: i + 1, eventType: "source.ready", payload, now: due });
    }
  });
  return { webhookId, ids };
}

/** Whether the delivery `id` is among the due ones at `now`. */
async function isDue(store: Store, id: string, now: string): Promise<boolean> {
  return (await dueDeliveries(store.reader, now, 1000)).some((r) => r.delivery.id === id);
}

for (const engine of engines) {
  const { name, store } = engine;

  test(`${name}: of two racing claims of one due delivery, exactly one wins`, async () => {
    const other = others.get(name)!;
    const { ids, webhookId } = await seedDeliveries(store, 10, at(0));
    for (const id of ids) {
      // The same read, claimed at once by this store and by the other one.
      const claim = (s: Store) => s.atomically((tx) => claimDelivery(tx, id, at(0), at(40_000), at(1)));
      const won = await Promise.all([claim(store), claim(other), claim(store)]);
      expect(won.filter(Boolean).length).toBe(1);
    }
    const rows = await listDeliveries(store.reader, webhookId, 100);
    expect(rows.map((r) => r.nextAttemptAt)).toEqual(ids.map(() => at(40_000)));
  });

  test(`${name}: a claimed delivery is due again only when its claim runs out`, async () => {
    const { ids } = await seedDeliveries(store, 1, at(100_000));
    const id = ids[0]!;
    expect(await isDue(store, id, at(99_999))).toBe(false);
    expect(await isDue(store, id, at(100_000))).toBe(true);
    // Not due yet when claimed: not taken.
    expect(await store.atomically((tx) => claimDelivery(tx, id, at(100_000), at(140_000), at(99_999)))).toBe(false);

    const lease = at(140_000);
    expect(await store.atomically((tx) => claimDelivery(tx, id, at(100_000), lease, at(100_000)))).toBe(true);
    expect(await isDue(store, id, at(100_000))).toBe(false);
    expect(await isDue(store, id, at(139_999))).toBe(false);
    // The process that claimed it died: after the claim, another takes it again.
    expect(await isDue(store, id, lease)).toBe(true);
    const other = others.get(name)!;
    expect(await other.atomically((tx) => claimDelivery(tx, id, at(100_000), at(190_000), lease))).toBe(false);
    expect(await other.atomically((tx) => claimDelivery(tx, id, lease, at(190_000), lease))).toBe(true);
    expect(await isDue(store, id, at(189_999))).toBe(false);
  });

  test(`${name}: a delivery whose row changed after the read is not claimed`, async () => {
    const { ids } = await seedDeliveries(store, 2, at(200_000));
    const [retried, delivered] = ids as [string, string];
    const read = (await dueDeliveries(store.reader, at(200_000), 1000)).filter((r) => ids.includes(r.delivery.id));
    expect(read.map((r) => r.delivery.nextAttemptAt)).toEqual([at(200_000), at(200_000)]);

    // After the read, one attempt was recorded with a retry due already, the other delivered.
    const attempt = (deliveryId: string) => ({
      deliveryId,
      attempt: 1,
      at: at(200_001),
      statusCode: 500,
      error: "the receiver answered 500",
      durationMs: 1,
    });
    await store.atomically(async (tx) => {
      await recordAttempt(tx, attempt(retried), { attempts: 1, status: "pending", nextAttemptAt: at(200_002) });
      await recordAttempt(tx, attempt(delivered), { attempts: 1, status: "delivered", nextAttemptAt: null });
    });
    const now = at(300_000);
    for (const id of ids) {
      expect(await store.atomically((tx) => claimDelivery(tx, id, at(200_000), at(340_000), now))).toBe(false);
    }
    // The retry, read afresh, is taken; the delivered one never.
    expect(await store.atomically((tx) => claimDelivery(tx, retried, at(200_002), at(340_000), now))).toBe(true);
    expect(await isDue(store, delivered, now)).toBe(false);
    expect(await store.atomically((tx) => claimDelivery(tx, delivered, at(200_000), at(340_000), now))).toBe(false);
  });

  const wheres = name === "postgres" ? (["one store", "two stores"] as const) : (["one store"] as const);
  for (const where of wheres) {
    test(`${name}: two deliverers on ${where} POST each of 20 deliveries exactly once`, async () => {
      const received = new Map<string, number>();
      const receiver = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        async fetch(req) {
          const id = req.headers.get("x-ragd-delivery") ?? "";
          received.set(id, (received.get(id) ?? 0) + 1);
          await Bun.sleep(5); // attempts overlap, as real receivers make them
          return new Response(null, { status: 204 });
        },
      });
      const config = { fetchAllow: ["127.0.0.1"], fetchDeny: [], webhookRetryDelaysMs: [200, 200] };
      const log = createLogger("error", () => {});
      const { ids, webhookId } = await seedDeliveries(
        store,
        20,
        new Date().toISOString(),
        `http://127.0.0.1:${receiver.port}/hook`,
      );
      const a = new WebhookDeliverer({ db: store, config, log });
      const b = new WebhookDeliverer({ db: where === "one store" ? store : others.get(name)!, config, log });
      try {
        a.start();
        b.start();
        await waitFor(
          "all 20 delivered",
          async () => (await listDeliveries(store.reader, webhookId, 100)).every((r) => r.status === "delivered"),
          15_000,
        );
      } finally {
        await Promise.all([a.stop(), b.stop()]);
        receiver.stop(true);
      }
      expect([...received.keys()].sort()).toEqual([...ids].sort());
      expect([...received.values()].every((n) => n === 1)).toBe(true);
      const attempts = await attemptsOf(store.reader, ids);
      expect(ids.map((id) => attempts.get(id)?.length)).toEqual(ids.map(() => 1));
    }, 20_000);
  }
}
