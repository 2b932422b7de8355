/**
 * Run by test/binary-ocr.test.ts, inside a network namespace with only loopback when the
 * machine allows one: starts the compiled binary, uploads a picture and a scanned PDF,
 * waits for them to settle and prints what the server says of them as one JSON line.
 */
import { tempDir } from "./app";
import { startBinary } from "./binary";
import { waitFor } from "./wait";
import { makeScannedPdf, ocrImage } from "./ocr-text";

const server = await startBinary(tempDir(), {}, tempDir("ragd-cwd-"), 60_000);
try {
  const jar: { cookie?: string } = {};
  await server.http("/api/auth/signup", {
    method: "POST",
    json: { email: "ocr@example.com", password: "correct horse battery" },
    jar,
  });
  const pid = (await server.http("/api/rag/pipelines", { method: "POST", json: { name: "scans" }, jar })).body.id;
  const files: [string, Uint8Array][] = [
    ["page.png", await ocrImage("png")],
    ["scan.pdf", await makeScannedPdf(["scan"])],
  ];
  for (const [fileName, bytes] of files) {
    const created = await server.http(`/api/rag/pipelines/${pid}/sources`, {
      method: "POST",
      json: { type: "file", fileName, fileSize: bytes.byteLength },
      jar,
    });
    await fetch(created.body.uploadUrl, { method: "PUT", body: bytes as Uint8Array<ArrayBuffer> });
  }
  const sources = await waitFor(
    "the scans to settle",
    async () => {
      const all = (await server.http(`/api/rag/pipelines/${pid}/sources`, { jar })).body as { status: string }[];
      return all.every((s) => s.status === "ready" || s.status === "failed") ? all : null;
    },
    120_000,
  );
  const key = (await server.http(`/api/rag/pipelines/${pid}/keys`, { method: "POST", json: { name: "k" }, jar })).body
    .key;
  const found = await server.http("/api/rag/query", {
    method: "POST",
    json: { query: "quick brown fox", mode: "keyword", topK: 5 },
    headers: { authorization: `Bearer ${key}` },
  });
  console.log(JSON.stringify({ sources, results: found.body.results }));
} finally {
  server.proc.kill("SIGKILL");
}
