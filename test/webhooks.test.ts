/**
 * Webhooks (docs/API.md, Events) end to end: a receiver on loopback checks every
 * signature with the secret it was given once, fails twice and is retried; the
 * delivery log shows the attempts; addresses the fetch rules refuse are refused at
 * create (400 naming url) or, when the rules changed since, fail the delivery naming
 * the rule. URL credentials are never shown.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { rmSync } from "node:fs";
import { buildApp } from "../src/app";
import { createLogger } from "../src/log";
import { closeServices, createServices } from "../src/services";
import { makeApp, type TestApp } from "./support/app";
import { Client, waitFor } from "./support/ingest";

interface Received {
  headers: Headers;
  body: string;
}

let t: TestApp;
let c: Client;
let receiver: ReturnType<typeof Bun.serve>;
const received: Received[] = [];
/** How many more requests the receiver answers 500. */
let failuresLeft = 0;

beforeAll(async () => {
  receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      received.push({ headers: req.headers, body: await req.text() });
      if (failuresLeft > 0) {
        failuresLeft--;
        return new Response("not now", { status: 500 });
      }
      return new Response(null, { status: 204 });
    },
  });
  t = await makeApp({ fetchAllow: ["127.0.0.1"], webhookRetryDelaysMs: [200, 200, 200, 200, 200] });
  c = await Client.create(t);
});

afterAll(async () => {
  receiver.stop(true);
  await t.close();
});

const hookUrl = (path = "/hook") => `http://127.0.0.1:${receiver.port}${path}`;
const verify = (secret: string, r: Received) =>
  r.headers.get("x-ragd-signature") === `sha256=${createHmac("sha256", secret).update(r.body).digest("hex")}`;

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
    // Six attempts, each picked up by the deliverer's 1 s tick: about 5 s when all goes well.
  }, 30_000);
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
