/**
 * Sign-in limits: failures count per (email, client address) and per address, so a
 * stranger cannot lock a user out. In-process with the peer address the server would
 * record, and through the binary from two loopback source addresses.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { request } from "node:http";
import { SIGN_IN_LIMITS } from "../src/features/auth/service";
import { ClientAddresses, recordPeer } from "../src/http/client-address";
import { email, makeApp, tempDir, type TestApp } from "./support/app";
import { ensureBinary, type RunningBinary, startBinary } from "./support/binary";

const PASSWORD = "the owner's password";
const PAIR = SIGN_IN_LIMITS.perEmailAndAddress;
const ADDRESS = SIGN_IN_LIMITS.perAddress;

/** One line of a scenario: `times` sign-ins from `from`, each expected to answer `status`. */
interface Step {
  from: string;
  who: "owner" | "other" | "fresh";
  password: "right" | "wrong";
  times?: number;
  status: number;
}

const scenarios: [string, Step[]][] = [
  [
    "a stranger's failures do not lock the owner out of another address",
    [
      { from: "203.0.113.7", who: "owner", password: "wrong", times: PAIR, status: 401 },
      { from: "203.0.113.7", who: "owner", password: "right", status: 429 },
      { from: "198.51.100.2", who: "owner", password: "right", status: 200 },
      { from: "198.51.100.2", who: "owner", password: "wrong", status: 401 },
    ],
  ],
  [
    "the pair's limit does not stop the same address signing in to another account",
    [
      { from: "203.0.113.8", who: "owner", password: "wrong", times: PAIR, status: 401 },
      { from: "203.0.113.8", who: "other", password: "right", status: 200 },
    ],
  ],
  [
    // One scenario for both: each needs the address limit's 50 slow password checks.
    "an address guessing at many emails is stopped at the address limit, which its own sign-in does not reset",
    [
      { from: "203.0.113.9", who: "fresh", password: "wrong", times: ADDRESS - 1, status: 401 },
      { from: "203.0.113.9", who: "other", password: "right", status: 200 },
      { from: "203.0.113.9", who: "fresh", password: "wrong", status: 401 },
      { from: "203.0.113.9", who: "owner", password: "right", status: 429 },
      { from: "198.51.100.3", who: "owner", password: "right", status: 200 },
    ],
  ],
  [
    "a success forgives the pair's earlier failures",
    [
      { from: "203.0.113.11", who: "owner", password: "wrong", times: PAIR - 1, status: 401 },
      { from: "203.0.113.11", who: "owner", password: "right", status: 200 },
      { from: "203.0.113.11", who: "owner", password: "wrong", times: PAIR, status: 401 },
      { from: "203.0.113.11", who: "owner", password: "right", status: 429 },
    ],
  ],
  [
    "IPv6 addresses of one /64 share their count",
    [
      { from: "2001:db8:1:2::a", who: "owner", password: "wrong", times: PAIR, status: 401 },
      { from: "2001:db8:1:2::b", who: "owner", password: "right", status: 429 },
      { from: "2001:db8:1:3::a", who: "owner", password: "right", status: 200 },
    ],
  ],
];

describe("through app.handle", () => {
  let t: TestApp;
  // One owner and one other account for every scenario: each scenario signs in from
  // addresses of its own, and the counts are per address and per (email, address).
  const owner = email("owner");
  const other = email("other");
  beforeAll(async () => {
    t = await makeApp();
    await t.signup(owner, PASSWORD);
    await t.signup(other, PASSWORD);
  });
  afterAll(() => t.close());

  test.each(scenarios)(
    "%s",
    async (_name, steps) => {
      for (const [i, step] of steps.entries()) {
        for (let n = 0; n < (step.times ?? 1); n++) {
          const who = step.who === "owner" ? owner : step.who === "other" ? other : email("nobody");
          const password = step.password === "right" ? PASSWORD : "not the password";
          const r = await t.call("POST", "/api/auth/login", { body: { email: who, password }, peer: step.from });
          expect({ step: i, attempt: n, status: r.status }).toEqual({ step: i, attempt: n, status: step.status });
          if (r.status === 429) expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
        }
      }
    },
    60_000,
  );
});

describe("the client address", () => {
  const peerOf = (peer: string, xff?: string, trusted: string[] = []) => {
    const req = new Request("http://localhost/", { headers: xff ? { "x-forwarded-for": xff } : {} });
    recordPeer(req, peer);
    return new ClientAddresses(trusted).of(req);
  };
  const cases: [string, string | undefined, string[], string][] = [
    ["203.0.113.7", undefined, [], "203.0.113.7"],
    ["::ffff:203.0.113.7", undefined, [], "203.0.113.7"],
    ["2001:db8:1:2:3:4:5:6", undefined, [], "2001:db8:1:2::/64"],
    ["203.0.113.7", "198.51.100.1", [], "203.0.113.7"],
    ["127.0.0.1", "198.51.100.1", ["127.0.0.1"], "198.51.100.1"],
    ["127.0.0.1", "198.51.100.1, 10.0.0.2", ["127.0.0.1", "10.0.0.0/8"], "198.51.100.1"],
    ["127.0.0.1", "6.6.6.6, 198.51.100.1", ["127.0.0.1"], "198.51.100.1"],
    ["127.0.0.1", "[2001:db8::1]:443", ["127.0.0.0/8"], "2001:db8:0:0::/64"],
    ["127.0.0.1", "garbage", ["127.0.0.1"], "127.0.0.1"],
    ["127.0.0.1", undefined, ["127.0.0.1"], "127.0.0.1"],
  ];
  test.each(cases)("peer %s, X-Forwarded-For %p, trusted %p → %s", (peer, xff, trusted, key) => {
    expect(peerOf(peer, xff, trusted)).toBe(key);
  });
});

/** Signs in over a real socket whose source address is `from` (any of 127/8 on Linux). */
function loginFrom(port: number, from: string, body: object): Promise<number> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        localAddress: from,
        method: "POST",
        path: "/api/auth/login",
        headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)) },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

describe("through the binary", () => {
  let bin: RunningBinary;
  beforeAll(async () => {
    await ensureBinary();
    bin = await startBinary(tempDir());
  });
  afterAll(() => bin?.proc.kill());

  test("failures from 127.0.0.2 do not stop the owner signing in from 127.0.0.1", async () => {
    const owner = "owner@example.com";
    const signup = await bin.http("/api/auth/signup", { method: "POST", json: { email: owner, password: PASSWORD } });
    expect(signup.status).toBe(201);
    for (let i = 0; i < PAIR; i++) {
      expect(await loginFrom(bin.port, "127.0.0.2", { email: owner, password: "a wrong guess" })).toBe(401);
    }
    expect(await loginFrom(bin.port, "127.0.0.2", { email: owner, password: PASSWORD })).toBe(429);
    expect(await loginFrom(bin.port, "127.0.0.1", { email: owner, password: PASSWORD })).toBe(200);
  }, 60_000);
});
