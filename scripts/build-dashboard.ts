/**
 * Bundles the dashboard (src/dashboard/main.tsx) for the browser into
 * src/dashboard/dist/: app.js and app.css. src/dashboard/routes.ts
 * imports those files as text, so `bun build --compile` embeds them in the binary.
 * Prints the size of the JavaScript, raw and gzipped (the budget is 300 KB gzip).
 */
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const src = join(root, "src", "dashboard");
const out = join(src, "dist");

/** Builds the bundle; returns the sizes of app.js in bytes. */
export async function buildDashboard(): Promise<{ raw: number; gzip: number; css: number }> {
  // Overwritten in place (fixed names), so a concurrent reader never finds the folder empty.
  await mkdir(out, { recursive: true });
  const result = await Bun.build({
    entrypoints: [join(src, "main.tsx")],
    outdir: out,
    target: "browser",
    format: "esm",
    minify: true,
    sourcemap: "none",
    naming: { entry: "app.[ext]", asset: "[name].[ext]" },
    define: { "process.env.NODE_ENV": JSON.stringify("production") },
  });
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    throw new Error("dashboard build failed");
  }
  const js = await readFile(join(out, "app.js"));
  const css = await readFile(join(out, "app.css"));
  return { raw: js.byteLength, gzip: Bun.gzipSync(js).byteLength, css: css.byteLength };
}

if (import.meta.main) {
  const { raw, gzip, css } = await buildDashboard();
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  console.log(`dashboard: app.js ${kb(raw)} raw, ${kb(gzip)} gzip; app.css ${kb(css)} → ${out}`);
}
