/** Retries of LanceDB commits that lost a race to another writer of the same table. */

const ATTEMPTS = 5;

/** Retries an operation that lost a commit race to another writer of the same table. */
export async function retryOnConflict<T>(op: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await op();
    } catch (err) {
      if (attempt >= ATTEMPTS || !/conflict|retry|concurrent/i.test(String(err))) throw err;
      await Bun.sleep(50 * 2 ** attempt);
    }
  }
}
