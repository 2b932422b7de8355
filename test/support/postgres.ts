/**
 * A throwaway PostgreSQL server on loopback, for the tests of running on PostgreSQL: the
 * server binaries of the system's `postgresql` package (.ci/run installs it), a fresh
 * cluster in a temporary directory, on a free port, stopped and removed by `stop()`.
 * PostgreSQL refuses to run as root, so under root the server runs as the `postgres` user.
 *
 * `npm test` starts one server for the whole run (test/support/run-services.ts) and names it
 * in RAGD_TEST_PG_URL: then `startPostgres()` hands out that server instead, each database
 * under a name of its own, and `stop()` drops the databases made through it. A test that
 * stops the server itself (pause/resume) asks for one of its own with `{ own: true }`.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chownSync, existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { SQL } from "bun";
import { tempDir } from "./temp";

export interface TestPostgres {
  /** postgres://ragd@127.0.0.1:<port>/postgres */
  url: string;
  /** Creates an empty database named after `name` (with a unique ending) and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server, keeping its data, until `resume` starts it again on the same port. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  stop(): Promise<void>;
}

/** The environment variable naming the run's shared server. */
export const SHARED_PG_ENV = "RAGD_TEST_PG_URL";
const shared = process.env[SHARED_PG_ENV] || null;

const ROOT = "/usr/lib/postgresql";

/** The newest installed server's bin directory, e.g. /usr/lib/postgresql/15/bin; null if none. */
function findServerBin(): string | null {
  const versions = existsSync(ROOT)
    ? readdirSync(ROOT).filter((v) => existsSync(join(ROOT, v, "bin", "postgres")))
    : [];
  versions.sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(ROOT, versions[0], "bin") : null;
}

/** Whether PostgreSQL's server binaries are installed (Debian's postgresql package). */
export const havePostgres = shared !== null || findServerBin() !== null;
export const NO_POSTGRES = `no PostgreSQL server under ${ROOT} (apt-get install -y postgresql)`;

/** Who runs the server: ourselves, or the postgres user when we are root. */
function runAs(dir: string): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(spawnSync("id", [flag, "postgres"], { encoding: "utf8" }).stdout.trim());
  const owner = { uid: id("-u"), gid: id("-g") };
  if (!Number.isInteger(owner.uid)) throw new Error("running as root, and there is no postgres user to run the server");
  chownSync(dir, owner.uid, owner.gid);
  return owner;
}

async function freePort(): Promise<number> {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/** Servers started here and not yet stopped: told to stop if the process exits without stop(). */
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const p of running) p.kill("SIGINT");
});

/**
 * The run's shared server when there is one, else a server of the caller's own;
 * `own` always starts one, `settings` are more `-c` settings for it.
 */
export async function startPostgres(opts: { own?: boolean; settings?: string[] } = {}): Promise<TestPostgres> {
  if (shared && !opts.own) return onShared(shared);
  const bin = findServerBin();
  if (!bin) throw new Error(NO_POSTGRES);
  const dir = tempDir("ragd-pg-");
  const user = runAs(dir);
  const data = join(dir, "data");
  const init = spawnSync(join(bin, "initdb"), ["-D", data, "-A", "trust", "-U", "ragd", "-E", "UTF8", "--locale=C"], {
    ...user,
    encoding: "utf8",
  });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  // Durability is not what these tests check: no fsync keeps them fast on a shared disk.
  const settings = [
    "listen_addresses=127.0.0.1",
    "fsync=off",
    "synchronous_commit=off",
    "full_page_writes=off",
    ...(opts.settings ?? []),
  ];
  const args = ["-D", data, "-p", String(port), "-k", dir, ...settings.flatMap((s) => ["-c", s])];
  let log = "";
  const launch = () => {
    const child: ChildProcess = spawn(join(bin, "postgres"), args, { ...user, stdio: ["ignore", "ignore", "pipe"] });
    child.stderr?.on("data", (b: Buffer) => {
      log = (log + b.toString()).slice(-4000);
    });
    running.add(child);
    child.once("exit", () => running.delete(child));
    return child;
  };
  let server = launch();
  const url = `postgres://ragd@127.0.0.1:${port}/postgres`;
  await untilAccepting(url, server, () => log);
  const halt = async () => {
    if (server.exitCode !== null) return;
    const exited = new Promise((r) => server.once("exit", r));
    server.kill("SIGINT"); // fast shutdown: ends sessions, no checkpoint wait
    await exited;
  };
  const stop = async () => {
    await halt();
    rmSync(dir, { recursive: true, force: true });
  };
  const resume = async () => {
    server = launch();
    await untilAccepting(url, server, () => log);
  };
  return { url, createDatabase: (name) => createDatabase(url, name), stop, pause: halt, resume };
}

/** The run's shared server: databases of the caller's own, dropped by `stop()`; the server itself stays up. */
function onShared(url: string): TestPostgres {
  const made: string[] = [];
  const refuse = async () => {
    throw new Error("the run's shared PostgreSQL cannot be paused: startPostgres({ own: true }) starts one to pause");
  };
  return {
    url,
    async createDatabase(name) {
      const db = await createDatabase(url, name);
      made.push(db.slice(db.lastIndexOf("/") + 1));
      return db;
    },
    pause: refuse,
    resume: refuse,
    async stop() {
      const sql = new SQL(url, { max: 1 });
      try {
        for (const name of made.splice(0)) await sql.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await sql.close();
      }
    },
  };
}

/** Creates `<name>_<random>`, so that files sharing one server never meet; its URL. */
async function createDatabase(url: string, name: string): Promise<string> {
  const unique = `${name.replace(/[^\w]/g, "")}_${Buffer.from(crypto.getRandomValues(new Uint8Array(4))).toString("hex")}`;
  const sql = new SQL(url, { max: 1 });
  try {
    await sql.unsafe(`CREATE DATABASE "${unique}"`);
  } finally {
    await sql.close();
  }
  return url.replace(/\/postgres$/, `/${unique}`);
}

async function untilAccepting(url: string, server: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`postgres exited (${server.exitCode}): ${log()}`);
    const sql = new SQL(url, { max: 1, connectionTimeout: 2 });
    try {
      await sql`SELECT 1`;
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`postgres did not start in 30 s: ${String(err)} ${log()}`);
      await Bun.sleep(100);
    } finally {
      await sql.close();
    }
  }
}
