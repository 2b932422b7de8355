/**
 * What a tenant token costs at the door (docs/API.md, Tenant tokens): KeyService.authorize
 * with a `rag_` key against the same with a token of that key (HS256 verified by jose,
 * claims checked, the access rule compiled), in one run, p50 and mean over many calls.
 * Target (issue 40): a token check adds at most 0.2 ms.
 *
 *   bun bench/token-check.ts [--calls 20000]
 */
import { parseArgs } from "node:util";
import { SignJWT } from "jose";
import { makeApp } from "../test/support/app";
import { Client } from "../test/support/ingest";

const { values } = parseArgs({ options: { calls: { type: "string", default: "20000" } } });
const calls = Number(values.calls);
const t = await makeApp({ workers: 1 });
const c = await Client.create(t);
const pipeline = await c.pipeline({ name: "tokens" });
const made = await c.call("POST", `/api/rag/pipelines/${pipeline}/keys`, { name: "k", scopes: ["query", "tokens"] });
const { id, key, tokenSecret } = made.body as { id: string; key: string; tokenSecret: string };
const token = await new SignJWT({ key: id, principals: ["group:a", "user:42"], filter: { team: "hr" } })
  .setProtectedHeader({ alg: "HS256" })
  .setExpirationTime("1h")
  .sign(new TextEncoder().encode(tokenSecret));

async function timeOf(bearer: string): Promise<{ p50: number; mean: number }> {
  const keys = t.services.keys;
  for (let i = 0; i < 1000; i++) await keys.authorize(`Bearer ${bearer}`, "query");
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const at = performance.now();
    await keys.authorize(`Bearer ${bearer}`, "query");
    times.push(performance.now() - at);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length / 2)]!, mean: times.reduce((a, b) => a + b, 0) / times.length };
}

const rounds: { key: number; token: number }[] = [];
for (let r = 0; r < 3; r++) rounds.push({ key: (await timeOf(key)).p50, token: (await timeOf(token)).p50 });
for (const [i, r] of rounds.entries())
  console.log(`round ${i + 1}: key p50 ${(r.key * 1000).toFixed(1)} µs, token p50 ${(r.token * 1000).toFixed(1)} µs`);
const added = rounds.map((r) => r.token - r.key).sort((a, b) => a - b)[1]!;
console.log(`a token adds ${(added * 1000).toFixed(1)} µs (median of 3 rounds; target ≤ 200 µs)`);
await t.close();
