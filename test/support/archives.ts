/**
 * Pipeline exports in tests (docs/API.md, Export and import): asking for one, importing
 * bytes, and an export unpacked, its sources.jsonl changed and packed again with a
 * manifest whose hashes match, as a user who edits their own export would.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { archiveBytes, manifestOf, readArchive } from "../../src/backup/archive";
import type { ExportManifest } from "../../src/backup/export";
import type { TestApp } from "./app";

/** POST …/export of `pipelineId` with a session cookie: the response as it came. */
export function exportResponse(t: TestApp, cookie: string, pipelineId: string): Promise<Response> {
  return t.handle(
    new Request(`http://localhost/api/rag/pipelines/${pipelineId}/export`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: "{}",
    }),
  );
}

/** POST /api/rag/pipelines/import of `bytes` (with form `fields`) with a session cookie. */
export async function importArchive(
  t: TestApp,
  cookie: string,
  bytes: Uint8Array,
  fields: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append("archive", new Blob([bytes as Uint8Array<ArrayBuffer>]), "export.tar");
  const res = await t.handle(
    new Request("http://localhost/api/rag/pipelines/import", { method: "POST", headers: { cookie }, body: form }),
  );
  return { status: res.status, body: (await res.json()) as any };
}

/** An export unpacked into a fresh directory: `dir` holds its entries, `head` its manifest without them. */
export interface Unpacked {
  dir: string;
  head: Omit<ExportManifest, "entries">;
}

export async function unpackExport(bytes: Uint8Array): Promise<Unpacked> {
  const base = mkdtempSync(join(tmpdir(), "ragd-export-"));
  const file = join(base, "in.tar");
  writeFileSync(file, bytes);
  const dir = join(base, "x");
  const { entries: _, ...head } = await readArchive<ExportManifest>(file, () => {}, dir);
  return { dir, head };
}

/** The directory packed again with a manifest whose hashes match (`headPatch` changes its other fields). */
export async function repackExport(u: Unpacked, headPatch: Partial<ExportManifest> = {}): Promise<Uint8Array> {
  const manifest = await manifestOf<ExportManifest>(u.dir, { ...u.head, ...headPatch });
  const parts: Uint8Array[] = [];
  for await (const p of archiveBytes(u.dir, manifest)) parts.push(p.slice());
  return Buffer.concat(parts);
}

/** The rows of an unpacked export's sources.jsonl. */
export function sourceRows(dir: string): Record<string, any>[] {
  return readFileSync(join(dir, "sources.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

export function writeSourceRows(dir: string, rows: Record<string, unknown>[]): void {
  writeFileSync(join(dir, "sources.jsonl"), rows.map((r) => `${JSON.stringify(r)}\n`).join(""));
}
