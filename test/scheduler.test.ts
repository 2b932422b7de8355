/**
 * The one scheduler of periodic work (src/tools/scheduler.ts): jobs run at their
 * intervals of the injected clock, tick() runs one now and waits for it, a failure is
 * reported and the job goes on, stop() ends every timer.
 */
import { describe, expect, test } from "bun:test";
import { loadConfig } from "../src/config";
import { Scheduler } from "../src/tools/scheduler";
import { ManualClock } from "./support/manual-clock";

function setup() {
  const clock = new ManualClock();
  const errors: [string, unknown][] = [];
  const s = new Scheduler((job, err) => errors.push([job, err]), clock);
  return { clock, errors, s };
}

describe("Scheduler", () => {
  test("each job runs at its own interval of the clock, first one interval after start", () => {
    const { clock, s } = setup();
    const runs: string[] = [];
    s.add("fast", 1000, () => runs.push(`fast@${clock.now() % 100_000}`));
    s.add("slow", 2500, () => runs.push(`slow@${clock.now() % 100_000}`));
    clock.advance(5000);
    expect(runs).toEqual([]); // not started: nothing runs
    s.start();
    clock.advance(5000);
    expect(runs.filter((r) => r.startsWith("fast")).length).toBe(5);
    expect(runs.filter((r) => r.startsWith("slow")).length).toBe(2);
  });

  test("tick(name) runs one job now and waits for its work; tick() runs them all in order", async () => {
    const { s } = setup();
    const order: string[] = [];
    s.add("a", 60_000, async () => {
      await Bun.sleep(1);
      order.push("a done");
    });
    s.add("b", 60_000, () => order.push("b"));
    await s.tick("a");
    expect(order).toEqual(["a done"]);
    await s.tick();
    expect(order).toEqual(["a done", "a done", "b"]);
    expect(s.names()).toEqual(["a", "b"]);
    await expect(s.tick("missing")).rejects.toThrow("no job named missing");
  });

  test("a failed run is reported with its job's name and the job runs again", async () => {
    const { clock, errors, s } = setup();
    let n = 0;
    s.add("flaky", 1000, () => {
      n++;
      if (n === 1) throw new Error("first run fails");
    });
    s.start();
    clock.advance(1000);
    clock.advance(1000);
    await Bun.sleep(0);
    expect(n).toBe(2);
    expect(errors.map(([job, err]) => [job, String(err)])).toEqual([["flaky", "Error: first run fails"]]);
  });

  test("stop() ends every timer; a job added after start runs on its own interval", () => {
    const { clock, s } = setup();
    let runs = 0;
    s.start();
    s.add("late", 100, () => runs++);
    clock.advance(300);
    expect(runs).toBe(3);
    s.stop();
    expect(clock.armed).toBe(0);
    clock.advance(1000);
    expect(runs).toBe(3);
  });

  test("names are unique and intervals positive", () => {
    const { s } = setup();
    s.add("one", 10, () => {});
    expect(() => s.add("one", 10, () => {})).toThrow("already scheduled");
    expect(() => s.add("zero", 0, () => {})).toThrow("positive interval");
  });
});

describe("the periods as settings", () => {
  test("defaults are the periods ragd always ran with", () => {
    const { config } = loadConfig({}, {});
    expect(config.upkeepEveryMs).toBe(10_000);
    expect(config.housekeepingEveryMs).toBe(3_600_000);
    expect(config.refreshCheckEveryMs).toBe(5000);
    expect(config.diskCheckEveryMs).toBe(2000);
    expect(config.replicaLeaseMs).toBe(30_000);
  });

  test("a test or an operator shortens them with a unit; a bare number or one out of range is refused", () => {
    const env = { RAGD_UPKEEP_EVERY: "250ms", RAGD_REPLICA_LEASE: "6s", RAGD_HOUSEKEEPING_EVERY: "2h" };
    const { config } = loadConfig({ "refresh-check-every": "1s" }, env);
    expect([config.upkeepEveryMs, config.replicaLeaseMs, config.housekeepingEveryMs]).toEqual([250, 6000, 7_200_000]);
    expect(config.refreshCheckEveryMs).toBe(1000);
    expect(() => loadConfig({}, { RAGD_UPKEEP_EVERY: "10" })).toThrow("RAGD_UPKEEP_EVERY must be a time like 500ms");
    expect(() => loadConfig({}, { RAGD_REPLICA_LEASE: "1s" })).toThrow("RAGD_REPLICA_LEASE");
  });
});
