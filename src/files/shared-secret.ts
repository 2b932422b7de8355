/**
 * The signing secret of replicas: what `secret.key` is to one server (upload URLs,
 * single sign-on's state), kept in the bucket under `<prefix>/_ragd/secret.key`, so that
 * every replica signs and checks with the same one. The first replica to start creates it
 * with a put-if-absent (`If-None-Match: *`, which replicas need of the store anyway); the
 * others, and the loser of a race, read what won.
 */
import { randomBytes } from "node:crypto";
import { type ObjectStorage, storageKey } from "../config-storage";
import { presignUrl } from "./presign";
import { isRefusal } from "./put-if-absent";

const TRIES = 3;

export async function loadSharedSecret(store: ObjectStorage): Promise<Buffer> {
  const key = storageKey(store, "_ragd/secret.key");
  const url = (method: "GET" | "PUT") => presignUrl(store, { method, key, expiresInS: 300 });
  for (let i = 0; i < TRIES; i++) {
    const got = await fetch(url("GET"));
    const text = await got.text();
    if (got.ok && /^[0-9a-f]{64}$/.test(text.trim())) return Buffer.from(text.trim(), "hex");
    if (got.ok)
      throw new Error(`the shared signing secret at ${key} is not 64 hex digits; remove it to make a new one`);
    if (got.status !== 404) throw new Error(`the object store answered ${got.status} reading ${key}`);
    const put = await fetch(url("PUT"), {
      method: "PUT",
      body: randomBytes(32).toString("hex"),
      headers: { "if-none-match": "*" },
    });
    await put.arrayBuffer();
    if (!put.ok && !isRefusal(put.status)) throw new Error(`the object store answered ${put.status} writing ${key}`);
    // Written, or another replica's won: either way, read what the store keeps.
  }
  throw new Error(`could not read the shared signing secret at ${key}`);
}
