/**
 * deploy/Containerfile, built with Debian's podman from the root file system
 * deploy/container-rootfs.sh assembles around dist/ragd (no base image pulled), in a
 * podman storage of its own under a temporary directory. The image must run as uid 10001,
 * keep /data as a volume and carry the /readyz health check; where this machine lets
 * podman run containers, the container must come up and the health check pass.
 * Skipped without podman or busybox-static (Debian packages), with the reason.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./support/app";
import { ensureBinary } from "./support/binary";
import { waitFor } from "./support/wait";

const root = join(import.meta.dir, "..");
const podmanPath = Bun.which("podman");
const busybox = Bun.which("busybox");
const missing = !podmanPath ? "podman is not installed" : !busybox ? "busybox (busybox-static) is not installed" : "";
if (missing) console.log(`container tests skipped: ${missing}`);

const work = missing ? "" : tempDir("ragd-container-");
const podman = (...args: string[]) => {
  const p = Bun.spawnSync(
    [podmanPath!, "--root", join(work, "storage"), "--runroot", join(work, "run"), "--storage-driver", "vfs", ...args],
    { cwd: work, stdout: "pipe", stderr: "pipe" },
  );
  return { code: p.exitCode, out: p.stdout.toString().trim(), err: p.stderr.toString().trim() };
};

beforeAll(async () => {
  if (missing) return;
  const binary = await ensureBinary();
  const rootfs = Bun.spawnSync([join(root, "deploy", "container-rootfs.sh"), binary, join(work, "context")]);
  if (rootfs.exitCode !== 0) throw new Error(rootfs.stderr.toString());
  const build = podman(
    "build",
    "--format",
    "docker",
    "--isolation",
    "chroot",
    "-f",
    join(root, "deploy", "Containerfile"),
    "-t",
    "ragd:test",
    join(work, "context"),
  );
  if (build.code !== 0) throw new Error(`podman build failed:\n${build.err}`);
}, 600_000);

afterAll(() => {
  if (missing) return;
  podman("rm", "-f", "ragd-test");
  podman("rmi", "-a", "-f");
  rmSync(work, { recursive: true, force: true });
});

describe.skipIf(Boolean(missing))("container image", () => {
  test("runs as uid 10001 with /data as a volume and a /readyz health check", () => {
    const [image] = JSON.parse(podman("image", "inspect", "ragd:test").out);
    expect(image.Config.User).toBe("10001:10001");
    expect(Object.keys(image.Config.Volumes)).toEqual(["/data"]);
    expect(image.Config.Entrypoint).toEqual(["/usr/local/bin/ragd"]);
    // podman lists the health check beside the configuration, where the docker format keeps it.
    expect((image.HealthCheck ?? image.Healthcheck ?? image.Config.Healthcheck).Test.join(" ")).toContain(
      "http://127.0.0.1:8484/readyz",
    );
  });

  test("the container starts and its health check passes, where podman may run it", async () => {
    const run = podman("run", "-d", "--name", "ragd-test", "--network", "host", "-e", "RAGD_PORT=8484", "ragd:test");
    if (run.code !== 0) {
      // This machine's sandbox, for one, refuses the runtime's setrlimit: say so, do not pass silently.
      console.log(`container run skipped: podman could not run it here: ${run.err.split("\n").at(-1)}`);
      return;
    }
    await waitFor("the health check", () => podman("healthcheck", "run", "ragd-test").code === 0, 30_000, 500);
    expect(podman("exec", "ragd-test", "/usr/local/bin/ragd", "version").out).toStartWith("ragd ");
  }, 60_000);
});
