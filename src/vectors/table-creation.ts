/**
 * Who creates a new table when several processes write to it first at once. LanceDB
 * turns a losing `createTable` either into "already exists" or, when its commit lost the
 * race, into an overwrite of the winner's table: the winner's rows vanish. So only the
 * process holding the right to create the table creates it; the others wait for the table
 * and write into it as into any other (writer.ts).
 */
import { type ObjectStorage, storageKey } from "../config-storage";
import { presignUrl } from "../files/presign";
import { isRefusal } from "../files/put-if-absent";

export interface TableCreation {
  /** True: this process creates the table, then calls release(). False: another one does. */
  reserve(name: string): Promise<boolean>;
  release(name: string): Promise<void>;
}

/** A data directory has one ragd process (its lock file), whose per-table queue suffices. */
export const LOCAL_CREATION: TableCreation = {
  reserve: async () => true,
  release: async () => {},
};

/**
 * On an object store the reservation is a marker object written with `If-None-Match: *`
 * (files/put-if-absent.ts tells whether the store honours it; LanceDB's own commits
 * need it too). It is removed once the table exists, or by a waiter that gave up on a
 * creator that died.
 */
export function objectStoreCreation(store: ObjectStorage): TableCreation {
  const url = (method: "PUT" | "DELETE", name: string) =>
    presignUrl(store, { method, key: storageKey(store, `_ragd/creating/${name}`), expiresInS: 60 });
  return {
    async reserve(name) {
      const r = await fetch(url("PUT", name), { method: "PUT", body: "", headers: { "if-none-match": "*" } });
      await r.arrayBuffer();
      if (r.ok) return true;
      if (isRefusal(r.status)) return false;
      throw new Error(`reserving the creation of vector table ${name}: the object store answered ${r.status}`);
    },
    async release(name) {
      const r = await fetch(url("DELETE", name), { method: "DELETE" });
      await r.arrayBuffer();
      if (!r.ok && r.status !== 404)
        throw new Error(`releasing vector table ${name}: the object store answered ${r.status}`);
    },
  };
}

/** How long a process waits for another to create a table before it thinks the creator died. */
export const CREATE_WAIT_MS = 60_000;

/**
 * The table another process is creating, once it exists. After CREATE_WAIT_MS the reservation
 * is removed (its holder has died or hangs) and the write fails, to be retried with the
 * task: the next attempt may reserve the table itself.
 */
export async function awaitCreation<T>(
  creation: TableCreation,
  name: string,
  open: () => Promise<T | null>,
  waitMs = CREATE_WAIT_MS,
): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const table = await open();
    if (table) return table;
    if (Date.now() > deadline) {
      await creation.release(name);
      throw new Error(`vector table ${name}: another process reserved its creation and has not created it`);
    }
    await Bun.sleep(200);
  }
}
