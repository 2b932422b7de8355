/**
 * OCR in the compiled binary (docs/API.md, "OCR"): the Tesseract core, its wasm and the
 * English data must be inside the executable and its ingestion worker must start the OCR
 * thread there. Run with the network cut off (a network namespace with only loopback,
 * when the machine lets us make one), so that a download of anything would fail the test.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { ensureBinary } from "./support/binary";

const driver = join(import.meta.dir, "support", "ocr-offline.ts");

/** `unshare -n` with loopback up, when this machine allows it (root or user namespaces). */
function offlinePrefix(): string[] | null {
  const probe = Bun.spawnSync(["unshare", "-n", "ip", "link", "set", "lo", "up"], { stderr: "ignore" });
  return probe.success ? ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$0" "$@"'] : null;
}

test("the binary reads a picture and a scanned PDF by OCR with no network", async () => {
  await ensureBinary();
  const prefix = offlinePrefix();
  if (!prefix) console.log("binary OCR test runs with the network on: unshare -n is not allowed here");
  const run = Bun.spawn([...(prefix ?? []), process.execPath, driver], { stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text()]);
  expect(await run.exited, err).toBe(0);
  const { sources, results } = JSON.parse(out.trim().split("\n").at(-1)!);
  const seen = sources.map((s: { fileName: string; status: string; error: string | null; ocr?: unknown }) => [
    s.fileName,
    s.status,
    s.error,
    s.ocr,
  ]);
  expect(seen.sort()).toEqual([
    ["page.png", "ready", null, { languages: ["eng"], pages: 1 }],
    ["scan.pdf", "ready", null, { languages: ["eng"], pages: 1 }],
  ]);
  expect(results.length).toBe(2);
  for (const r of results) expect(r.content).toContain("quick brown fox");
}, 240_000);
