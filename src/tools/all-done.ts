/**
 * Promise.all that settles only once every promise has: the first rejection, in the given
 * order, is thrown after the rest are done. Concurrent calls on one LanceDB table handle
 * go through it: the handle may close as soon as its holder returns (vectors/tables.ts,
 * TableCache.hold), and a call still running on a closed handle reads freed memory. With
 * Promise.all, one call failing (its table's files going with a drop) let the holder
 * return while the other still ran, and the process died with a segmentation fault.
 */
export async function allDone<T extends readonly unknown[] | []>(
  promises: T,
): Promise<{ -readonly [P in keyof T]: Awaited<T[P]> }> {
  const results = (await Promise.allSettled(promises)) as PromiseSettledResult<unknown>[];
  for (const r of results) if (r.status === "rejected") throw r.reason;
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as {
    -readonly [P in keyof T]: Awaited<T[P]>;
  };
}
