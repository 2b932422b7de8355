/**
 * Webhooks (docs/API.md, Events) end to end: a receiver on loopback checks every
 * signature with the secret it was given once, fails twice and is retried; the
 * delivery log shows the attempts; addresses the fetch rules refuse are refused at
 * create (400 naming url) or, when the rules changed since, fail the delivery naming
 * the rule. URL credentials are never shown. A test ping and a redelivery go through
 * the same outbox, and the timed signature lets a receiver refuse a replay.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac, timingSafeEqual } from "node:crypto";
import { rmSync } from "node:fs";
import { buildApp } from "../src/app";
import { createLogger } from "../src/log";
import { closeServices, createServices } from "../src/services";
import { version } from "../src/version";
import { makeApp, type TestApp } from "./support/app";
import { Client, waitFor } from "./support/ingest";

interface Received {
  headers: Headers;
  body: string;
  path: string;
}

let t: TestApp;
let c: Client;
let receiver: ReturnType<typeof Bun.serve>;
const received: Received[] = [];
/** How many more requests the receiver answers 500. */
let failuresLeft = 0;
/** Requests to /hold wait for this to resolve. */
let hold = Promise.withResolvers<void>();

beforeAll(async () => {
  receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      received.push({ headers: req.headers, body: await req.text(), path });
      if (path === "/hold") await hold.promise;
      if (failuresLeft > 0) {
        failuresLeft--;
        return new Response("not now", { status: 500 });
      }
      return new Response(null, { status: 204 });
    },
  });
  // Retries 200 ms apart, looked for every 100 ms instead of every second.
  t = await makeApp({
    fetchAllow: ["127.0.0.1"],
    webhookRetryDelaysMs: [200, 200, 200, 200, 200],
    deliveryTickMs: 100,
  });
  c = await Client.create(t);
});

afterAll(async () => {
  receiver.stop(true);
  await t.close();
});

const hookUrl = (path = "/hook") => `http://127.0.0.1:${receiver.port}${path}`;
const verify = (secret: string, r: Received) =>
  r.headers.get("x-ragd-signature") === `sha256=${createHmac("sha256", secret).update(r.body).digest("hex")}`;

/** A receiver's check (docs/API.md, "Verifying a signature"): the time within 5 minutes, then the HMAC of `<time>.<body>`. */
function verifyTimed(secret: string, r: Received, nowSeconds = Date.now() / 1000): boolean {
  const timestamp = r.headers.get("x-ragd-timestamp") ?? "";
  const header = r.headers.get("x-ragd-signature-v2") ?? "";
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > 300) return false;
  const expected = `sha256=${createHmac("sha256", secret).update(`${timestamp}.${r.body}`).digest("hex")}`;
  return header.length === expected.length && timingSafeEqual(Buffer.from(header), Buffer.from(expected));
}

describe("deliveries", () => {
  test("signed, retried after the receiver fails twice, and logged with their attempts", async () => {
    const pid = await c.pipeline();
    const created = await c.call("POST", `/api/rag/pipelines/${pid}/webhooks`, {
      url: hookUrl("/ready"),
      events: ["source.ready"],
      description: "tell the wiki",
    });
    expect(created.status).toBe(201);
    const { secret, id: hookId } = created.body;
    expect(secret).toMatch(/^whsec_/);
    failuresLeft = 2;
    const s = await c.addText(pid, "Webhooks tell an application that its document is searchable.");
    const mine = () => received.filter((r) => r.body.includes(s.id));
    await waitFor("three attempts", () => mine().length >= 3, 20_000);
    const attempts = mine();
    expect(attempts.length).toBe(3);
    for (const r of attempts) {
      expect(verify(secret, r)).toBe(true);
      expect(verify("whsec_wrong", r)).toBe(false);
      expect(r.headers.get("x-ragd-event")).toBe("source.ready");
      expect(r.headers.get("content-type")).toBe("application/json");
    }
    // One delivery, one id, the same body on every attempt.
    expect(new Set(attempts.map((r) => r.headers.get("x-ragd-delivery"))).size).toBe(1);
    expect(new Set(attempts.map((r) => r.body)).size).toBe(1);
    const event = JSON.parse(attempts[0]!.body);
    expect(event).toMatchObject({ type: "source.ready", pipelineId: pid, sourceId: s.id, status: "ready" });
    const log = await waitFor("the delivery to be recorded", async () => {
      const r = await c.call("GET", `/api/rag/pipelines/${pid}/webhooks/${hookId}/deliveries`);
      return r.body?.[0]?.status === "delivered" ? r.body : null;
    });
    expect(log).toHaveLength(1); // only source.ready was asked for
    expect(log[0]).toMatchObject({
      id: attempts[0]!.headers.get("x-ragd-delivery"),
      eventType: "source.ready",
      eventId: event.id,
      attempts: 3,
      lastStatusCode: 204,
      lastError: null,
      payload: attempts[0]!.body,
    });
    // Every try is in the log with its own answer, not only the last one.
    expect(log[0].attemptLog.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3]);
    expect(log[0].attemptLog.map((a: { statusCode: number }) => a.statusCode)).toEqual([500, 500, 204]);
    expect(log[0].attemptLog[0].error).toContain("500");
    expect(log[0].attemptLog[2].error).toBeNull();
    for (const a of log[0].attemptLog) expect(a.durationMs).toBeGreaterThanOrEqual(0);
    // The event the webhook got is the one the stream serves.
    const stored = t.services.db.reader.$client
      .query("SELECT type, document_id FROM events WHERE id = ?")
      .get(event.id);
    expect(stored).toEqual({ type: "source.ready", document_id: s.id });
  });

  test("a receiver that keeps failing: the delivery fails after the last attempt, saying why", async () => {
    const pid = await c.pipeline();
    const hook = await c.call("POST", `/api/rag/pipelines/${pid}/webhooks`, {
      url: hookUrl("/down"),
      events: ["source.queued"],
    });
    failuresLeft = 1000;
    await c.addText(pid, "Nobody answers this one.");
    const log = await waitFor("the delivery to fail", async () => {
      const r = await c.call("GET", `/api/rag/pipelines/${pid}/webhooks/${hook.body.id}/deliveries`);
      return r.body?.[0]?.status === "failed" ? r.body : null;
    });
    failuresLeft = 0;
    expect(log[0]).toMatchObject({ attempts: 6, lastStatusCode: 500, nextAttemptAt: null });
    expect(log[0].lastError).toContain("500");
    expect(log[0].attemptLog).toHaveLength(6);
    expect(new Set(log[0].attemptLog.map((a: { statusCode: number }) => a.statusCode))).toEqual(new Set([500]));
    // Six attempts, each picked up by the deliverer's 100 ms tick: about 1.5 s when all goes well.
  }, 30_000);
});

describe("test pings, redeliveries and replays", () => {
  const hooks = (pid: string) => `/api/rag/pipelines/${pid}/webhooks`;

  test("a ping is delivered at once, names ragd once, and is signed with its time against replays", async () => {
    const pid = await c.pipeline();
    // Subscribed to one type only: a ping goes whatever the webhook takes.
    const hook = await c.call("POST", hooks(pid), { url: hookUrl("/ping"), events: ["reindex.completed"] });
    const queued = await c.call("POST", `${hooks(pid)}/${hook.body.id}/test`);
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ webhookId: hook.body.id, eventType: "ping", eventId: 0, status: "pending" });
    const got = await waitFor("the ping", () =>
      received.find((r) => r.headers.get("x-ragd-delivery") === queued.body.id),
    );
    expect(JSON.parse(got.body)).toEqual({
      type: "ping",
      pipelineId: pid,
      webhookId: hook.body.id,
      time: expect.any(String),
    });
    expect(got.body).toBe(queued.body.payload);
    expect(got.headers.get("x-ragd-event")).toBe("ping");
    expect(got.headers.get("user-agent")).toBe(`ragd/${version}`);
    const secret = hook.body.secret;
    expect(verify(secret, got)).toBe(true);
    expect(verifyTimed(secret, got)).toBe(true);
    expect(verifyTimed("whsec_wrong", got)).toBe(false);
    // The same request replayed six minutes later, or with its time moved on, fails the check.
    expect(verifyTimed(secret, got, Date.now() / 1000 + 360)).toBe(false);
    const moved = new Headers(got.headers);
    moved.set("x-ragd-timestamp", String(Math.floor(Date.now() / 1000) + 60));
    expect(verifyTimed(secret, { ...got, headers: moved })).toBe(false);
    const log = await waitFor("the ping to be recorded", async () => {
      const r = await c.call("GET", `${hooks(pid)}/${hook.body.id}/deliveries`);
      return r.body?.[0]?.status === "delivered" ? r.body : null;
    });
    expect(log.map((d: { id: string }) => d.id)).toEqual([queued.body.id]);
  });

  test("a settled delivery is sent again as a new delivery with the same body; a pending one is 409", async () => {
    const pid = await c.pipeline();
    const hook = await c.call("POST", hooks(pid), { url: hookUrl("/again") });
    const first = await c.call("POST", `${hooks(pid)}/${hook.body.id}/test`);
    const deliveries = `${hooks(pid)}/${hook.body.id}/deliveries`;
    await waitFor(
      "the first delivery",
      async () => (await c.call("GET", deliveries)).body?.[0]?.status === "delivered",
    );
    const again = await c.call("POST", `${deliveries}/${first.body.id}/redeliver`);
    expect(again.status).toBe(202);
    expect(again.body.id).not.toBe(first.body.id);
    expect(again.body).toMatchObject({
      eventType: "ping",
      payload: first.body.payload,
      status: "pending",
      attempts: 0,
    });
    const got = await waitFor("the redelivery", () =>
      received.find((r) => r.headers.get("x-ragd-delivery") === again.body.id),
    );
    expect(got.body).toBe(first.body.payload);
    expect(verifyTimed(hook.body.secret, got)).toBe(true);
    const unknown = await c.call("POST", `${deliveries}/0190c1d2-0000-7000-8000-000000000000/redeliver`);
    expect([unknown.status, unknown.body.error.code]).toEqual([404, "not_found"]);

    // A delivery still being tried cannot be sent again beside itself.
    hold = Promise.withResolvers<void>();
    const held = await c.call("POST", hooks(pid), { url: hookUrl("/hold") });
    const ping = await c.call("POST", `${hooks(pid)}/${held.body.id}/test`);
    await waitFor("the held attempt", () => received.some((r) => r.headers.get("x-ragd-delivery") === ping.body.id));
    const busy = await c.call("POST", `${hooks(pid)}/${held.body.id}/deliveries/${ping.body.id}/redeliver`);
    hold.resolve();
    expect([busy.status, busy.body.error.code]).toEqual([409, "conflict"]);
    // A delivery of another webhook of the pipeline is not this one's.
    const crossed = await c.call("POST", `${deliveries}/${ping.body.id}/redeliver`);
    expect(crossed.status).toBe(404);
  });

  test("another user's pipeline: 404 for the test and the redelivery", async () => {
    const pid = await c.pipeline();
    const hook = await c.call("POST", hooks(pid), { url: hookUrl() });
    const ping = await c.call("POST", `${hooks(pid)}/${hook.body.id}/test`);
    const other = await Client.create(t);
    expect((await other.call("POST", `${hooks(pid)}/${hook.body.id}/test`)).status).toBe(404);
    const r = await other.call("POST", `${hooks(pid)}/${hook.body.id}/deliveries/${ping.body.id}/redeliver`);
    expect(r.status).toBe(404);
    expect((await c.call("POST", `${hooks(pid)}/0190c1d2-0000-7000-8000-000000000000/test`)).status).toBe(404);
  });
});

describe("managing webhooks", () => {
  test("list shows no secret and no URL credentials; delete removes it and its log", async () => {
    const pid = await c.pipeline();
    const created = await c.call("POST", `/api/rag/pipelines/${pid}/webhooks`, {
      url: `http://hookuser:hookpass@127.0.0.1:${receiver.port}/auth`,
    });
    expect(created.status).toBe(201);
    expect(created.text).not.toContain("hookpass");
    expect(created.body.events).toBeNull();
    const list = await c.call("GET", `/api/rag/pipelines/${pid}/webhooks`);
    expect(list.body).toHaveLength(1);
    expect(list.body[0].url).toBe(`http://127.0.0.1:${receiver.port}/auth`);
    expect(list.text).not.toContain("hookpass");
    expect(list.text).not.toContain(created.body.secret);
    // The receiver gets the credentials as Basic auth.
    await c.addText(pid, "Credentials go to the receiver only.");
    const got = await waitFor("a delivery with credentials", () =>
      received.find((r) => r.headers.get("authorization") && r.body.includes(pid)),
    );
    expect(got.headers.get("authorization")).toBe(`Basic ${btoa("hookuser:hookpass")}`);
    const del = await c.call("DELETE", `/api/rag/pipelines/${pid}/webhooks/${created.body.id}`);
    expect(del.status).toBe(200);
    expect((await c.call("GET", `/api/rag/pipelines/${pid}/webhooks`)).body).toEqual([]);
    const log = await c.call("GET", `/api/rag/pipelines/${pid}/webhooks/${created.body.id}/deliveries`);
    expect(log.status).toBe(404);
  });

  test("another user's pipeline: 404 for every webhook route", async () => {
    const pid = await c.pipeline();
    const other = await Client.create(t);
    expect((await other.call("GET", `/api/rag/pipelines/${pid}/webhooks`)).status).toBe(404);
    const r = await other.call("POST", `/api/rag/pipelines/${pid}/webhooks`, { url: hookUrl() });
    expect(r.status).toBe(404);
  });

  test.each([
    [{ url: "not a url" }, "url", "absolute"],
    [{ url: "ftp://example.com/hook" }, "url", "http(s)"],
    [{ url: "RECEIVER", events: ["source.exploded"] }, "events.0", "must be one of: source.queued, source.processing"],
    [{ url: "RECEIVER", events: [] }, "events", ""],
    [{ url: "RECEIVER", description: "x".repeat(501) }, "description", ""],
    [{ url: "RECEIVER", event: ["source.ready"] }, "event", ""],
  ])("bad input %j is 400 naming %s", async (body, field, words) => {
    const pid = await c.pipeline();
    const sent = { ...body, url: body.url === "RECEIVER" ? hookUrl() : body.url };
    const r = await c.call("POST", `/api/rag/pipelines/${pid}/webhooks`, sent);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("invalid_request");
    expect(JSON.stringify(r.body.error)).toContain(field);
    expect(r.body.error.message).toContain(words);
  });
});

describe("the fetch rules", () => {
  test.each([
    ["http://127.0.0.1:9/hook", "loopback"],
    ["http://localhost:9/hook", "loopback"],
    ["http://[::1]:9/hook", "loopback"],
    ["http://169.254.10.1/hook", "link-local"],
    ["http://169.254.169.254/latest/meta-data", "cloud metadata"],
    ["http://0.0.0.0/hook", "unspecified"],
  ])("without RAGD_FETCH_ALLOW, %s is 400 naming the rule", async (url, rule) => {
    const strict = await makeApp({ workers: 1 });
    try {
      const sc = await Client.create(strict);
      const pid = await sc.pipeline();
      const r = await sc.call("POST", `/api/rag/pipelines/${pid}/webhooks`, { url });
      expect(r.status).toBe(400);
      expect(r.body.error.details[0].field).toBe("url");
      expect(r.body.error.message).toContain("refused by the fetch rules");
      expect(r.body.error.message).toContain(rule);
    } finally {
      await strict.close();
    }
  });

  test("a webhook allowed when made fails its delivery, naming the rule, once the rules refuse it", async () => {
    const first = await makeApp({ fetchAllow: ["127.0.0.1"], webhookRetryDelaysMs: [] });
    const fc = await Client.create(first);
    const pid = await fc.pipeline();
    const hook = await fc.call("POST", `/api/rag/pipelines/${pid}/webhooks`, { url: hookUrl("/later") });
    expect(hook.status).toBe(201);
    // The same data directory, served again without the allowance.
    await closeServices(first.services);
    const config = { ...first.config, fetchAllow: [] };
    const services = await createServices(
      config,
      createLogger("error", () => {}),
    );
    try {
      const app = buildApp(services);
      const before = received.length;
      const res = await app.handle(
        new Request(`http://localhost/api/rag/pipelines/${pid}/sources`, {
          method: "POST",
          headers: { cookie: fc.cookie, "content-type": "application/json" },
          body: JSON.stringify({ type: "text", content: "Refused at delivery." }),
        }),
      );
      expect(res.status).toBe(201);
      const log = await waitFor("the delivery to fail", async () => {
        const r = await app.handle(
          new Request(`http://localhost/api/rag/pipelines/${pid}/webhooks/${hook.body.id}/deliveries`, {
            headers: { cookie: fc.cookie },
          }),
        );
        const body = (await r.json()) as any[];
        return body.find((d) => d.status === "failed") ? body : null;
      });
      const failed = log.find((d) => d.status === "failed");
      expect(failed.lastError).toBe("address 127.0.0.1 is refused by the fetch rules (loopback)");
      expect(failed.lastStatusCode).toBeNull();
      expect(received.slice(before).some((r) => r.body.includes(pid))).toBe(false);
    } finally {
      await closeServices(services);
      rmSync(first.dataDir, { recursive: true, force: true });
    }
  });
});
