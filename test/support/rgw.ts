/**
 * A throwaway S3-compatible store on loopback, for the tests of object storage: Ceph's
 * RADOS Gateway from the system's `radosgw`, `ceph-mon` and `ceph-osd` packages (.ci/run
 * installs them). One monitor, one OSD keeping its data in memory, no cephx, free ports,
 * a temporary directory, one user with keys and one bucket; `stop()` ends the daemons and
 * removes the directory. Start-up takes about 15 s, so a test file starts one store, and
 * `npm test` starts one for the whole run (test/support/run-services.ts) and names it in
 * the RAGD_TEST_S3_* variables: then `startRgw()` hands out that store, with buckets of the
 * caller's own, and `stop()` leaves it running. RGW is the store of choice because it
 * honours `If-None-Match: *` (docs/notes/2026-12-06-object-storage.md).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ObjectStorage } from "../../src/config-storage";
import { presignUrl } from "../../src/files/presign";

export interface TestRgw {
  /** The bucket's settings, with prefix "" and the test user's keys. */
  storage: ObjectStorage;
  /** Creates another empty bucket, named after `name` with a unique ending, and returns settings for it. */
  createBucket(name: string): Promise<ObjectStorage>;
  stop(): Promise<void>;
}

/** The environment variables naming the run's shared store: its endpoint and the test user's keys. */
export const SHARED_RGW_ENV = {
  endpoint: "RAGD_TEST_S3_URL",
  accessKeyId: "RAGD_TEST_S3_ACCESS_KEY_ID",
  secretAccessKey: "RAGD_TEST_S3_SECRET_ACCESS_KEY",
} as const;
const sharedEnv = Object.values(SHARED_RGW_ENV).map((name) => process.env[name] ?? "");

const BINARIES = ["radosgw", "ceph-mon", "ceph-osd", "radosgw-admin", "monmaptool", "ceph-authtool", "ceph"];

/** Whether Ceph's daemons and tools are on PATH. */
export const haveRgw = sharedEnv.every(Boolean) || BINARIES.every((b) => Bun.which(b) !== null);
export const NO_RGW = "no Ceph RGW installed (apt-get install -y --no-install-recommends ceph-mon ceph-osd radosgw)";

/** Daemons still running and directories not yet removed: cleared if the test process exits without stop(). */
const running = new Set<ChildProcess>();
const dirs = new Set<string>();
process.once("exit", () => {
  for (const p of running) if (p.pid) process.kill(p.pid, "SIGKILL");
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

function cephConf(dir: string, fsid: string, monPort: number, rgwPort: number, memoryBytes: number): string {
  return `[global]
fsid = ${fsid}
mon host = v1:127.0.0.1:${monPort}
mon initial members = a
auth cluster required = none
auth service required = none
auth client required = none
auth allow insecure global id reclaim = false
osd pool default size = 1
osd pool default min size = 1
mon allow pool size one = true
osd pool default pg num = 8
osd pool default pgp num = 8
mon max pg per osd = 1000
osd crush chooseleaf type = 0
osd objectstore = memstore
memstore device bytes = ${memoryBytes}
run dir = ${dir}/run
admin socket = ${dir}/run/$name.asok
log file = ${dir}/log/$name.log
pid file = ${dir}/run/$name.pid
mon data = ${dir}/mon.$id
osd data = ${dir}/osd.$id
ms bind msgr2 = false
ms bind ipv6 = false
mon data avail warn = 1
[client.rgw]
rgw frontends = beast endpoint=127.0.0.1:${rgwPort}
rgw data = ${dir}/rgw
`;
}

/** Runs a Ceph tool to completion; throws with its output when it fails. */
function tool(cmd: string, args: string[], timeoutMs = 60_000): string {
  const r = spawnSync(cmd, args, { encoding: "utf8", timeout: timeoutMs });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status ?? r.signal}): ${r.stderr}`);
  return r.stdout;
}

/** A daemon in the foreground, as our child, so stop() and an exiting test process end it. */
function daemon(cmd: string, args: string[]): ChildProcess {
  const p = spawn(cmd, ["-f", ...args], { stdio: "ignore" });
  running.add(p);
  p.once("exit", () => running.delete(p));
  return p;
}

/**
 * The run's shared store when there is one, else a store of the caller's own (`own` always
 * starts one, of `memoryBytes`, 2 GiB unless told); a start that fails (the OSD now and
 * then keeps exiting with "wrong fsid", below) is thrown away whole and made again, once.
 */
export async function startRgw(opts: { own?: boolean; memoryBytes?: number } = {}): Promise<TestRgw> {
  const [endpoint, accessKeyId, secretAccessKey] = sharedEnv;
  // Objects stay until the run's end: RGW frees a deleted object's memory only at its later garbage collection.
  if (endpoint && accessKeyId && secretAccessKey && !opts.own)
    return onStore({ prefix: "", endpoint, region: "us-east-1", accessKeyId, secretAccessKey }, async () => {});
  if (!BINARIES.every((b) => Bun.which(b) !== null)) throw new Error(NO_RGW);
  try {
    return await startRgwOnce(opts.memoryBytes ?? 2 ** 31);
  } catch (err) {
    console.error(`the test RGW did not start, starting another: ${String(err).slice(0, 2000)}`);
    return startRgwOnce(opts.memoryBytes ?? 2 ** 31);
  }
}

/** A store at `base`'s endpoint with its keys: a bucket of the caller's own, and more on demand. */
async function onStore(base: Omit<ObjectStorage, "bucket">, stop: () => Promise<void>): Promise<TestRgw> {
  const createBucket = async (name: string) => {
    const storage = { ...base, bucket: `${name}-${randomHex(4)}` };
    const res = await fetch(presignUrl(storage, { method: "PUT", key: "", expiresInS: 60 }), { method: "PUT" });
    if (!res.ok) throw new Error(`creating bucket ${storage.bucket}: ${res.status} ${await res.text()}`);
    return storage;
  };
  return { storage: await createBucket("ragd-test"), createBucket, stop };
}

async function startRgwOnce(memoryBytes: number): Promise<TestRgw> {
  const dir = mkdtempSync(join(tmpdir(), "ragd-rgw-"));
  dirs.add(dir);
  const daemons: ChildProcess[] = [];
  const stop = async () => {
    for (const p of daemons) await ended(p);
    rmSync(dir, { recursive: true, force: true });
    dirs.delete(dir);
  };
  try {
    const endpoint = await startDaemons(dir, daemons, memoryBytes);
    const [accessKeyId, secretAccessKey] = [`k${randomHex(10)}`, randomHex(20)];
    const user = [`--access-key=${accessKeyId}`, `--secret=${secretAccessKey}`];
    tool("radosgw-admin", [
      "-c",
      join(dir, "ceph.conf"),
      "user",
      "create",
      "--uid=ragd",
      "--display-name=ragd",
      ...user,
    ]);
    return await onStore({ prefix: "", endpoint, region: "us-east-1", accessKeyId, secretAccessKey }, stop);
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Monitor, OSD and gateway, each pushed onto `daemons` as it starts; the gateway's URL. */
async function startDaemons(dir: string, daemons: ChildProcess[], memoryBytes: number): Promise<string> {
  for (const d of ["run", "log", "mon.a", "osd.0", "rgw"]) mkdirSync(join(dir, d));
  const [monPort, rgwPort, fsid] = [await freePort(), await freePort(), crypto.randomUUID()];
  const conf = join(dir, "ceph.conf");
  writeFileSync(conf, cephConf(dir, fsid, monPort, rgwPort, memoryBytes));
  const c = ["-c", conf];
  const [monmap, keyring] = [join(dir, "monmap"), join(dir, "keyring")];
  tool("monmaptool", ["--create", "--addv", "a", `[v1:127.0.0.1:${monPort}]`, "--fsid", fsid, monmap]);
  tool("ceph-authtool", ["--create-keyring", keyring, "--gen-key", "-n", "mon.", "--cap", "mon", "allow *"]);
  tool("ceph-mon", [...c, "--mkfs", "-i", "a", "--monmap", monmap, "--keyring", keyring]);
  daemons.push(daemon("ceph-mon", [...c, "-i", "a"]));
  // The monitor takes a moment to form its one-member quorum; the first calls may fail.
  const osdCreated = () => spawnSync("ceph", [...c, "osd", "create"], { timeout: 10_000 }).status === 0;
  await until("the monitor", 60_000, osdCreated, () => exitedDaemon(daemons, dir));
  tool("ceph-osd", [...c, "-i", "0", "--mkfs"]);
  daemons.push(await startOsd(c, join(dir, "log", "osd.0.log")));
  daemons.push(daemon("radosgw", [...c, "-n", "client.rgw"]));
  const endpoint = `http://127.0.0.1:${rgwPort}`;
  const answers = () =>
    fetch(endpoint).then(
      (r) => r.ok,
      () => false,
    );
  await until("the gateway", 90_000, answers, () => exitedDaemon(daemons, dir));
  return endpoint;
}

/**
 * The OSD, once it is active. Now and then it asks the monitor for its place in the map
 * before it has the map's fsid, is refused ("wrong fsid") and exits: then it starts again.
 */
async function startOsd(c: string[], log: string): Promise<ChildProcess> {
  for (let attempt = 1; ; attempt++) {
    const from = existsSync(log) ? readFileSync(log, "utf8").length : 0;
    const osd = daemon("ceph-osd", [...c, "-i", "0"]);
    const active = () => existsSync(log) && readFileSync(log, "utf8").includes("state: booting -> active", from);
    try {
      await until(
        "the OSD",
        60_000,
        active,
        () => osd.exitCode !== null && `exit ${osd.exitCode}: ${readFileSync(log, "utf8").slice(from).slice(-3000)}`,
      );
      return osd;
    } catch (err) {
      await ended(osd);
      if (attempt === 5) throw err;
      // The monitor may still be settling its map: give it longer each time.
      await Bun.sleep(500 * attempt);
    }
  }
}

function exitedDaemon(daemons: ChildProcess[], dir: string): string | false {
  const d = daemons.find((p) => p.exitCode !== null);
  return d ? `${d.spawnargs.join(" ")} exited with ${d.exitCode}. ${logTail(dir)}` : false;
}

/** Polls `ready` until it holds; `dead` names why waiting is pointless (a daemon exited). */
async function until(
  what: string,
  ms: number,
  ready: () => boolean | Promise<boolean>,
  dead: () => string | false | undefined = () => false,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ready())) {
    const why = dead();
    if (why) throw new Error(`${what} did not start: ${why}`);
    if (Date.now() > deadline) throw new Error(`${what} did not start in ${ms / 1000} s`);
    await Bun.sleep(250);
  }
}

/** Kills a daemon outright: the store is thrown away, and a clean stop (the OSD saving its memory to disk) took seconds. */
async function ended(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return;
  const exited = new Promise((r) => p.once("exit", r));
  p.kill("SIGKILL");
  await exited;
}

function logTail(dir: string): string {
  return ["mon.a", "osd.0", "client.rgw"]
    .map((n) => join(dir, "log", `${n}.log`))
    .filter(existsSync)
    .map((f) => `${f}: ${readFileSync(f, "utf8").slice(-1500)}`)
    .join("\n");
}

function randomHex(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}
