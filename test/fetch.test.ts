import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { FetchError, literalAddressProblem, safeFetch } from "../src/ingest/fetch";
import { refusedBy } from "../src/ingest/fetch/refused-addresses";
import { parseIp } from "../src/tools/address";

/** A server on 127.0.0.1 that counts requests and serves one route per test case. */
function startServer() {
  const state = { hits: 0 };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      state.hits++;
      const url = new URL(req.url);
      const [, route, arg] = url.pathname.split("/");
      if (route === "ok") return new Response("hello");
      if (route === "host") return new Response(req.headers.get("host"));
      if (route === "auth") return new Response(req.headers.get("authorization") ?? "none");
      if (route === "hop")
        return Number(arg) > 0 ? Response.redirect(`/hop/${Number(arg) - 1}`, 302) : new Response("landed");
      if (route === "to") return Response.redirect(url.searchParams.get("url")!, 302);
      if (route === "status") return new Response("no", { status: Number(arg) });
      if (route === "big") return new Response("x".repeat(10_000));
      if (route === "stream") return new Response(chunks(10, 1_000));
      // Slow: the answer, or its second chunk, comes only once the client has given up.
      if (route === "slow") return gone(req).then(() => new Response("late"));
      if (route === "slow-body") return new Response(chunks(2, 10, () => gone(req)));
      return new Response("not found", { status: 404 });
    },
  });
  return { state, server, port: server.port! };
}

/** Resolves once the client has gone away from `req` (closed the connection or aborted). */
function gone(req: Request): Promise<void> {
  return new Promise((resolve) => {
    if (req.signal.aborted) resolve();
    else req.signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

/** A body of `count` chunks of `size` bytes; before each chunk after the first it waits for `pause`, if given. */
function chunks(count: number, size: number, pause?: () => Promise<void>): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    async pull(controller) {
      if (sent > 0 && pause) {
        await pause();
        // The client left: nobody reads the rest.
        return controller.close();
      }
      if (sent++ === count) return controller.close();
      controller.enqueue(new Uint8Array(size).fill(120));
    },
  });
}

const main = startServer();
const other = startServer();
const { port } = main;
afterAll(() => {
  main.server.stop(true);
  other.server.stop(true);
});
beforeEach(() => {
  main.state.hits = 0;
  other.state.hits = 0;
});

const opts = (extra: Partial<Parameters<typeof safeFetch>[1]> = {}) => ({
  allow: [],
  deny: [],
  maxBytes: 1_000_000,
  timeoutMs: 5_000,
  ...extra,
});

async function failure(url: string, options = opts()): Promise<FetchError> {
  const err = await safeFetch(url, options).then(
    () => new Error(`fetch of ${url} succeeded`),
    (e: Error) => e,
  );
  expect(err).toBeInstanceOf(FetchError);
  return err as FetchError;
}

describe("refused addresses", () => {
  const cases: [string, string][] = [
    [`http://2130706433:${port}/ok`, "address 127.0.0.1 is refused by the fetch rules (loopback)"],
    [`http://0x7f.1:${port}/ok`, "address 127.0.0.1 is refused by the fetch rules (loopback)"],
    [`http://127.1:${port}/ok`, "address 127.0.0.1 is refused by the fetch rules (loopback)"],
    [`http://[::ffff:127.0.0.1]:${port}/ok`, "address ::ffff:7f00:1 is refused by the fetch rules (loopback)"],
    [`http://localhost.:${port}/ok`, "host localhost is refused by the fetch rules (loopback)"],
    [`http://0:${port}/ok`, "address 0.0.0.0 is refused by the fetch rules (unspecified)"],
    [`http://[::1]:${port}/ok`, "address ::1 is refused by the fetch rules (loopback)"],
    [`http://[::]:${port}/ok`, "address :: is refused by the fetch rules (unspecified)"],
    [
      "http://169.254.169.254/latest/meta-data/",
      "address 169.254.169.254 is refused by the fetch rules (cloud metadata)",
    ],
    ["http://169.254.1.1/", "address 169.254.1.1 is refused by the fetch rules (link-local)"],
    ["http://[fe80::1]/", "address fe80::1 is refused by the fetch rules (link-local)"],
    ["http://224.0.0.1/", "address 224.0.0.1 is refused by the fetch rules (multicast)"],
    ["http://[ff02::1]/", "address ff02::1 is refused by the fetch rules (multicast)"],
  ];
  test.each(cases)("%s", async (url, message) => {
    const err = await failure(url);
    expect(err.message).toBe(message);
    expect(err.transient).toBe(false);
    expect(main.state.hits).toBe(0);
  });

  test("only http and https", async () => {
    expect((await failure("file:///etc/passwd")).message).toMatch(/only http and https/);
  });

  test("private ranges are not refused", async () => {
    const err = await failure("http://10.255.255.1:9/", opts({ timeoutMs: 100 }));
    expect(err.message).not.toMatch(/refused by the fetch rules/);
  });

  test("the deny list wins over the allow list", async () => {
    const err = await failure(`http://127.0.0.1:${port}/ok`, opts({ allow: ["127.0.0.1"], deny: ["127.0.0.0/8"] }));
    expect(err.message).toBe("address 127.0.0.1 is refused by the fetch rules (deny list)");
    const byName = await failure(`http://localhost:${port}/ok`, opts({ allow: ["localhost"], deny: ["LOCALHOST."] }));
    expect(byName.message).toBe("host localhost is refused by the fetch rules (deny list)");
    expect(main.state.hits).toBe(0);
  });

  test("a redirect to a refused address is refused before it is followed", async () => {
    const url = `http://localhost:${port}/to?url=${encodeURIComponent(`http://127.0.0.1:${other.port}/ok`)}`;
    expect((await failure(url, opts({ allow: ["localhost"] }))).message).toMatch(/127.0.0.1 is refused .*\(loopback\)/);
    expect(main.state.hits).toBe(1);
    expect(other.state.hits).toBe(0);
  });
});

describe("IPv4 carried inside IPv6", () => {
  // Each form is judged as the IPv4 address it reaches: a NAT64 gateway or a translator
  // would take a request for these to the embedded address.
  const cases: [string, string | null][] = [
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:0:127.0.0.1", "loopback"],
    ["::ffff:0:169.254.169.254", "cloud metadata"],
    ["::ffff:0:0.0.0.0", "unspecified"],
    ["::ffff:0:224.0.0.1", "multicast"],
    ["64:ff9b::127.0.0.1", "loopback"],
    ["64:ff9b::7f00:1", "loopback"],
    ["64:ff9b::169.254.169.254", "cloud metadata"],
    ["64:ff9b::a9fe:101", "link-local"],
    ["64:ff9b::0.0.0.0", "unspecified"],
    ["64:ff9b::255.255.255.255", "broadcast"],
    ["64:ff9b::239.1.1.1", "multicast"],
    ["64:ff9b:1::127.0.0.1", "loopback"],
    ["64:ff9b:1::169.254.169.254", "cloud metadata"],
    ["64:ff9b::8.8.8.8", null],
    ["64:ff9b::10.1.2.3", null],
    ["::ffff:0:8.8.8.8", null],
    ["64:ff9b:1::8.8.8.8", null],
    ["64:ff9c::127.0.0.1", null],
  ];
  test.each(cases)("%s is refused as %p", (address, rule) => {
    expect(refusedBy(parseIp(address)!)).toBe(rule);
  });

  test.each([
    ["[64:ff9b::7f00:1]", "address 64:ff9b::7f00:1 is refused by the fetch rules (loopback)"],
    ["[::ffff:0:7f00:1]", "address ::ffff:0:7f00:1 is refused by the fetch rules (loopback)"],
  ])("a fetch of %s is refused before connecting", async (host, message) => {
    expect((await failure(`http://${host}:${port}/ok`)).message).toBe(message);
    expect(main.state.hits).toBe(0);
  });

  test("the deny list applies to the IPv4 address a NAT64 address reaches", async () => {
    const err = await failure("http://[64:ff9b::a01:203]/", opts({ deny: ["10.0.0.0/8"] }));
    expect(err.message).toBe("address 64:ff9b::a01:203 is refused by the fetch rules (deny list)");
  });
});

describe("allowed fetches", () => {
  test("an allowed loopback server answers, by IP, odd form or CIDR", async () => {
    for (const [url, allow] of [
      [`http://127.0.0.1:${port}/ok`, "127.0.0.1"],
      [`http://127.1:${port}/ok`, "127.0.0.0/8"],
    ] as const) {
      const res = await safeFetch(url, opts({ allow: [allow] }));
      expect(new TextDecoder().decode(res.bytes)).toBe("hello");
      expect(res).toMatchObject({
        status: 200,
        contentType: "text/plain;charset=utf-8",
        finalUrl: `http://127.0.0.1:${port}/ok`,
      });
    }
  });

  test("the Host header is the original host name, not the address connected to", async () => {
    const res = await safeFetch(`http://localhost:${port}/host`, opts({ allow: ["localhost"] }));
    expect(new TextDecoder().decode(res.bytes)).toBe(`localhost:${port}`);
  });

  test("proxy variables are ignored", async () => {
    const saved = { HTTP_PROXY: process.env.HTTP_PROXY, http_proxy: process.env.http_proxy };
    process.env.HTTP_PROXY = process.env.http_proxy = `http://127.0.0.1:${other.port}`;
    try {
      const res = await safeFetch(`http://127.0.0.1:${port}/ok`, opts({ allow: ["127.0.0.1"] }));
      expect(res.status).toBe(200);
      expect(other.state.hits).toBe(0);
    } finally {
      for (const [k, v] of Object.entries(saved)) v === undefined ? delete process.env[k] : (process.env[k] = v);
    }
  });

  test("an error names a redirect's target without its query, which may carry a token", async () => {
    const allow = opts({ allow: ["127.0.0.1"] });
    const signed = encodeURIComponent("/status/403?X-Amz-Signature=s3cr3t#part");
    const err = await failure(`http://127.0.0.1:${port}/to?url=${signed}`, allow);
    expect(err.message).toBe(`http://127.0.0.1:${port}/status/403?… answered 403`);
  });

  test("five redirects are followed, a sixth is not", async () => {
    const allow = opts({ allow: ["127.0.0.1"] });
    expect((await safeFetch(`http://127.0.0.1:${port}/hop/5`, allow)).finalUrl).toBe(`http://127.0.0.1:${port}/hop/0`);
    expect((await failure(`http://127.0.0.1:${port}/hop/6`, allow)).message).toMatch(/redirected more than 5 times/);
  });
});

describe("credentials in the URL", () => {
  const basic = `Basic ${btoa("us@er:pa:ss")}`;
  const creds = "us%40er:pa%3Ass";
  const cases: [string, () => string, string][] = [
    ["the URL's own origin", () => `http://${creds}@127.0.0.1:${port}/auth`, basic],
    ["a redirect within the origin", () => `http://${creds}@127.0.0.1:${port}/to?url=/auth`, basic],
    [
      "a redirect to another origin",
      () => `http://${creds}@127.0.0.1:${port}/to?url=${encodeURIComponent(`http://127.0.0.1:${other.port}/auth`)}`,
      "none",
    ],
    [
      "credentials given in a Location header",
      () => `http://127.0.0.1:${port}/to?url=${encodeURIComponent(`http://x:y@127.0.0.1:${port}/auth`)}`,
      "none",
    ],
  ];
  test.each(cases)("are sent as Basic authorization to %s only", async (_name, url, sent) => {
    const res = await safeFetch(url(), opts({ allow: ["127.0.0.1"] }));
    expect(new TextDecoder().decode(res.bytes)).toBe(sent);
    expect(res.finalUrl).not.toContain("pa%3Ass");
    expect(res.finalUrl).not.toContain("x:y@");
  });

  test("are not in an error message", async () => {
    const err = await failure(`http://user:hunter2@127.0.0.1:${port}/status/404`, opts({ allow: ["127.0.0.1"] }));
    expect(err.message).toBe(`http://127.0.0.1:${port}/status/404 answered 404`);
    const bad = await failure("http://user:hunter2@exa mple.com/", opts());
    expect(bad.message).not.toContain("hunter2");
  });
});

describe("failures", () => {
  const allow = (extra = {}) => opts({ allow: ["127.0.0.1"], ...extra });

  test.each([
    ["404", false],
    ["503", true],
  ] as const)("a %s names the URL and sets transient", async (status, transient) => {
    const err = await failure(`http://127.0.0.1:${port}/status/${status}`, allow());
    expect(err.message).toBe(`http://127.0.0.1:${port}/status/${status} answered ${status}`);
    expect(err.transient).toBe(transient);
  });

  test.each(["big", "stream"])("a %s body over maxBytes fails", async (route) => {
    const err = await failure(`http://127.0.0.1:${port}/${route}`, allow({ maxBytes: 1_000 }));
    expect(err.message).toMatch(/is larger than the 1000-byte limit/);
  });

  test.each(["slow", "slow-body"])("a %s answer hits the timeout", async (route) => {
    const started = performance.now();
    const err = await failure(`http://127.0.0.1:${port}/${route}`, allow({ timeoutMs: 200 }));
    expect(err.message).toBe(`http://127.0.0.1:${port}/${route} did not answer within 200 ms`);
    expect(err.transient).toBe(true);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe("a URL checked where it enters, without a lookup", () => {
  const rules = (fetchAllow: string[] = [], fetchDeny: string[] = []) => ({ fetchAllow, fetchDeny });
  test.each([
    ["http://127.0.0.1:9/", rules(), "address 127.0.0.1 is refused by the fetch rules (loopback)"],
    ["http://127.0.0.1:9/", rules(["127.0.0.1"]), null],
    ["http://localhost:9/", rules(["localhost"]), null],
    ["http://app.localhost/", rules(), "host app.localhost is refused by the fetch rules (loopback)"],
    ["http://[64:ff9b::7f00:1]/", rules(), "address 64:ff9b::7f00:1 is refused by the fetch rules (loopback)"],
    ["http://10.0.0.5/", rules(), null],
    ["http://10.0.0.5/", rules([], ["10.0.0.0/8"]), "address 10.0.0.5 is refused by the fetch rules (deny list)"],
    // A host name is resolved and judged at each fetch, not here.
    ["http://wiki.corp/", rules([], ["wiki.corp"]), null],
    ["not a URL", rules(), null],
  ])("%s %j: %p", (url, config, problem) => {
    expect(literalAddressProblem(url, config)).toBe(problem);
  });
});
