/**
 * The logger's stderr writes (src/log.ts): the lines of one turn go in one write, in
 * order, and none is lost when the process exits right after logging. Each case runs
 * in a child process of its own, whose stderr is a real pipe.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";

const LOG = join(import.meta.dir, "..", "src", "log.ts");

/** Runs `body` as a script with the logger imported as `createLogger`; its stdout and stderr. */
async function run(body: string): Promise<{ out: string; err: string; code: number }> {
  const script = `import { createLogger } from ${JSON.stringify(LOG)};\n${body}`;
  const p = Bun.spawn(["bun", "-e", script], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { out, err, code };
}

test("the lines of one turn go to stderr in one write, in order", async () => {
  const r = await run(`
    const write = process.stderr.write.bind(process.stderr);
    let writes = 0;
    process.stderr.write = (chunk, ...rest) => { writes++; return write(chunk, ...rest); };
    const log = createLogger("info");
    for (let i = 0; i < 100; i++) log.info("source ready", { n: i });
    setTimeout(() => console.log(JSON.stringify({ writes })), 50);
  `);
  expect(r.code).toBe(0);
  expect(JSON.parse(r.out)).toEqual({ writes: 1 });
  const lines = r.err
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(lines.map((l) => l.n)).toEqual(Array.from({ length: 100 }, (_, i) => i));
});

test("a line logged right before process.exit() is written", async () => {
  const r = await run(`
    const log = createLogger("info");
    log.error("shutdown failed", { reason: "test" });
    process.exit(3);
  `);
  expect(r.code).toBe(3);
  expect(JSON.parse(r.err.trim())).toMatchObject({ level: "error", msg: "shutdown failed", reason: "test" });
});
