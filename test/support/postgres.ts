/**
 * A throwaway PostgreSQL server on loopback, for the tests of running on PostgreSQL: the
 * server binaries of the system's `postgresql` package (.ci/run installs it), a fresh
 * cluster in a temporary directory, on a free port, stopped and removed by `stop()`.
 * PostgreSQL refuses to run as root, so under root the server runs as the `postgres` user.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chownSync, existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { SQL } from "bun";
import { tempDir } from "./app";

export interface TestPostgres {
  /** postgres://ragd@127.0.0.1:<port>/postgres */
  url: string;
  /** Creates an empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server, keeping its data, until `resume` starts it again on the same port. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  stop(): Promise<void>;
}

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
export const havePostgres = findServerBin() !== null;
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

export async function startPostgres(): Promise<TestPostgres> {
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
  const settings = ["listen_addresses=127.0.0.1", "fsync=off", "synchronous_commit=off", "full_page_writes=off"];
  const args = ["-D", data, "-p", String(port), "-k", dir, ...settings.flatMap((s) => ["-c", s])];
  let log = "";
  const launch = () => {
    const child: ChildProcess = spawn(join(bin, "postgres"), args, { ...user, stdio: ["ignore", "ignore", "pipe"] });
    child.stderr?.on("data", (b: Buffer) => {
      log = (log + b.toString()).slice(-4000);
    });
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
  const createDatabase = async (name: string) => {
    const sql = new SQL(url, { max: 1 });
    await sql.unsafe(`CREATE DATABASE "${name.replaceAll('"', "")}"`);
    await sql.close();
    return url.replace(/\/postgres$/, `/${name}`);
  };
  return { url, createDatabase, stop, pause: halt, resume };
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
