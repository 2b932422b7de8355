/** Polls until `check` returns a truthy value, or fails after `ms`. */
export async function waitFor<T>(check: () => Promise<T> | T, ms = 20_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + ms;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await check();
    if (last) return last;
    await Bun.sleep(50);
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}; last value: ${JSON.stringify(last)}`);
}
