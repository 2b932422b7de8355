/**
 * When the periodic index upkeep runs what (vectors/upkeep-clock.ts): the full pass when
 * ingestion is quiet or has kept it waiting two minutes; while ingestion runs, the
 * full-text tail refresh only from the second tick that sees it on, so that a short
 * burst's commits never wait for an optimize() in their table's write queue.
 */
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLance } from "../src/vectors/connection";
import { VectorStore } from "../src/vectors/store";
import { BURST_GRACE_MS, FULL_PASS_WAIT_MS, QUIET_AFTER_WRITE_MS, UpkeepClock } from "../src/vectors/upkeep-clock";

const TICK = 10_000;

/** The steps of ticks every 10 s from t = 10 s, with ingestion busy as `busy` says at each. */
function steps(busy: boolean[]): string[] {
  const clock = new UpkeepClock(0);
  return busy.map((b, i) => clock.tick(b, (i + 1) * TICK));
}

test("quiet ticks run the full pass", () => {
  expect(steps([false, false, false])).toEqual(["full", "full", "full"]);
});

test("a burst that one tick sees alone refreshes no tail; the next quiet tick runs the full pass", () => {
  // A 5,000-document batch run lasts 4-6 s on a quiet machine: no optimize() meets its commits.
  expect(steps([false, true, false])).toEqual(["full", "none", "full"]);
});

test("a long burst refreshes tails from the grace on, and runs the full pass after two minutes", () => {
  const ticks = Array.from({ length: 16 }, (_, i) => i > 0);
  const out = steps(ticks);
  const graceTicks = BURST_GRACE_MS / TICK;
  // First busy tick at 20 s: tails from 20 s + grace on.
  expect(out.slice(1, 1 + graceTicks)).toEqual(Array(graceTicks).fill("none"));
  expect(out[1 + graceTicks]).toBe("tails");
  // The last full pass was at 10 s: the next one comes two minutes later, busy or not.
  const fullAt = out.indexOf("full", 1);
  expect((fullAt + 1) * TICK).toBe(TICK + FULL_PASS_WAIT_MS);
  expect(out[fullAt + 1]).toBe("tails");
});

test("during a long burst, after a pass that took d the next waits 4 × d when that is longer than two minutes", () => {
  const clock = new UpkeepClock(0);
  expect(clock.tick(true, FULL_PASS_WAIT_MS)).toBe("full");
  clock.fullPassTook(100_000); // a million rows
  const at = (s: number) => FULL_PASS_WAIT_MS + s * 1000;
  expect(clock.tick(true, at(120))).not.toBe("full");
  expect(clock.tick(true, at(399))).not.toBe("full");
  expect(clock.tick(true, at(400))).toBe("full");
  // A quiet tick runs it whenever.
  clock.fullPassTook(100_000);
  expect(clock.tick(false, at(410))).toBe("full");
  // A short pass leaves the two minutes.
  clock.fullPassTook(5_000);
  expect(clock.tick(true, at(410) + FULL_PASS_WAIT_MS)).toBe("full");
});

test("after a long pass, a lull counts as quiet only once it lasts a tenth of that pass", () => {
  const clock = new UpkeepClock(0);
  expect(clock.tick(false, 10_000)).toBe("full");
  clock.fullPassTook(600_000); // ten minutes: a lull must last a minute
  const at = 20_000;
  expect(clock.tick(false, at, at - 5_000)).not.toBe("full");
  expect(clock.tick(false, at + 60_000, at - 1)).toBe("full");
  // After a short pass, 3 s as before.
  clock.fullPassTook(1_000);
  expect(clock.tick(false, at + 120_000, at + 120_000 - QUIET_AFTER_WRITE_MS)).toBe("full");
});

test("a new burst after a quiet tick waits the grace again", () => {
  const grace = BURST_GRACE_MS / TICK;
  const burst = Array(grace + 1).fill(true);
  const out = steps([...burst, false, ...burst]);
  expect(out[grace]).toBe("tails");
  expect(out[grace + 1]).toBe("full");
  expect(out.slice(grace + 2, 2 * grace + 2)).toEqual(Array(grace).fill("none"));
  expect(out[2 * grace + 2]).toBe("tails");
});

test("a tick between two requests of a burst, with no task under way but a write just ended, is not quiet", () => {
  const clock = new UpkeepClock(0);
  expect(clock.tick(false, 10_000)).toBe("full");
  // No task at the tick, but chunks were written a second ago: the burst goes on.
  expect(clock.tick(false, 20_000, 19_000)).toBe("none");
  expect(clock.tick(true, 30_000, 29_900)).toBe("tails");
  // Writes ended long enough ago: quiet, the full pass runs.
  expect(clock.tick(false, 40_000, 40_000 - QUIET_AFTER_WRITE_MS)).toBe("full");
});

test("the store notes when a chunk write ends, the sign upkeep reads", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ragd-upkeep-clock-"));
  const conn = await openLance(dir);
  const vectorStore = new VectorStore(conn);
  try {
    expect(vectorStore.lastWriteAt).toBe(Number.NEGATIVE_INFINITY);
    const before = Date.now();
    const vector = new Float32Array(8).fill(0.5);
    await vectorStore.replaceDocuments(
      Bun.randomUUIDv7(),
      1,
      [],
      [{ id: "d:0", documentId: "d", chunkIndex: 0, text: "t", start: 0, end: 1, vector }],
    );
    expect(vectorStore.lastWriteAt).toBeGreaterThanOrEqual(before);
    expect(vectorStore.lastWriteAt).toBeLessThanOrEqual(Date.now());
  } finally {
    vectorStore.close();
    conn.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
