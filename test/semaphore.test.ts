import { expect, test } from "bun:test";
import { Semaphore } from "../src/tools/semaphore";

test("at most `limit` tasks run at once, in the order they came", async () => {
  const gate = new Semaphore(3);
  let running = 0;
  let most = 0;
  const started: number[] = [];
  const results = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      gate.run(async () => {
        started.push(i);
        most = Math.max(most, ++running);
        await Bun.sleep(5 + (i % 3) * 5);
        running--;
        return i * 2;
      }),
    ),
  );
  expect(most).toBe(3);
  expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  expect(results).toEqual([0, 2, 4, 6, 8, 10, 12, 14, 16, 18]);
  expect([gate.running, gate.queued]).toEqual([0, 0]);
});

test("a task that throws gives its turn to the next", async () => {
  const gate = new Semaphore(1);
  const failing = gate.run(async () => {
    throw new Error("boom");
  });
  const next = gate.run(async () => "ran");
  expect(gate.queued).toBe(1);
  await expect(failing).rejects.toThrow("boom");
  expect(await next).toBe("ran");
  expect([gate.running, gate.queued]).toEqual([0, 0]);
});

test("a limit below 1 is refused", () => {
  expect(() => new Semaphore(0)).toThrow(RangeError);
});
