/**
 * `ragd export --pipeline ID --to FILE` and `ragd import --from FILE --email E [--name N]`
 * (docs/API.md, Export and import). Both ask the server running on --data-dir, over
 * loopback HTTP with the token of its control file: the server alone writes its tables.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { readArchive, writeAtomically } from "../backup/archive";
import { checkExportManifest } from "../backup/import";
import { ConfigError } from "../config";
import { CONTROL_HEADER, readControlFile } from "../features/backup/control";

function server(dataDir: string) {
  const control = readControlFile(dataDir);
  if (!control) throw new ConfigError(`no ragd server runs on ${dataDir}; start one (ragd serve) and try again`);
  return control;
}

async function failure(res: Response): Promise<Error> {
  const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
  return new Error(`the server refused (${res.status}): ${body?.error?.message ?? res.statusText}`);
}

export async function exportCommand(dataDir: string, flags: Record<string, string>): Promise<number> {
  if (!flags.pipeline) throw new ConfigError("--pipeline ID is required");
  if (!flags.to) throw new ConfigError("--to FILE is required");
  const target = resolve(flags.to);
  if (existsSync(target)) throw new ConfigError(`${target} already exists; give --to a new file name`);
  const s = server(dataDir);
  const res = await fetch(`${s.url}/api/rag/pipelines/${encodeURIComponent(flags.pipeline)}/export`, {
    method: "POST",
    headers: { [CONTROL_HEADER]: s.token },
  });
  if (!res.ok || !res.body) throw await failure(res);
  const size = await writeAtomically(target, res.body as unknown as AsyncIterable<Uint8Array>, async (written) => {
    await readArchive(written, checkExportManifest);
  });
  console.log(`pipeline ${flags.pipeline} exported to ${target} (${size} bytes)`);
  return 0;
}

export async function importCommand(dataDir: string, flags: Record<string, string>): Promise<number> {
  if (!flags.from) throw new ConfigError("--from FILE is required");
  if (!flags.email) throw new ConfigError("--email E is required: the user who will own the pipeline");
  const file = resolve(flags.from);
  if (!existsSync(file)) throw new ConfigError(`${file} does not exist`);
  const s = server(dataDir);
  const form = new FormData();
  form.append("owner", flags.email);
  if (flags.name) form.append("name", flags.name);
  form.append("archive", Bun.file(file), "export.tar");
  const res = await fetch(`${s.url}/api/rag/pipelines/import`, {
    method: "POST",
    headers: { [CONTROL_HEADER]: s.token },
    body: form,
  });
  if (res.status !== 201) throw await failure(res);
  const r = (await res.json()) as {
    pipelineId: string;
    renamedFrom?: string;
    sources: number;
    chunks: number;
    model: { available: boolean; message: string };
  };
  const renamed = r.renamedFrom ? ` (renamed: a pipeline called "${r.renamedFrom}" exists)` : "";
  console.log(`imported pipeline ${r.pipelineId}${renamed}: ${r.sources} sources, ${r.chunks} chunks`);
  console.log(`${r.model.available ? "model ok" : "WARNING"}: ${r.model.message}`);
  return 0;
}
