/**
 * Calls `fn` until it returns something truthy, or throws after `timeoutMs` with
 * the last value seen, so a failure says what was being waited for.
 */
export async function waitFor<T>(
  what: string,
  fn: () => T | Promise<T>,
  timeoutMs = 20_000,
  intervalMs = 50,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
      last = v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}; last: ${String(last instanceof Error ? last.message : JSON.stringify(last))}`,
      );
    await Bun.sleep(intervalMs);
  }
}

/**
 * Whether `promise` resolves within `timeoutMs`: true as soon as it does, false at the
 * deadline; its rejection is thrown. For a wait on something that ends (a stream, a process) with an upper bound.
 */
export async function resolvesWithin(promise: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: Timer | undefined;
  const deadline = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  try {
    return await Promise.race([promise.then(() => true), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
