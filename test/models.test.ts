import { afterAll, beforeAll, expect, test } from "bun:test";
import { makeApp, type TestApp } from "./support/app";
import { startFakeOllama, type FakeOllama } from "./support/fake-ollama";

let fake: FakeOllama;
let t: TestApp;
beforeAll(async () => {
  fake = await startFakeOllama({ models: { "nomic-embed-text": 768, "all-minilm": 384 } });
  t = await makeApp({ ollamaUrl: fake.url });
});
afterAll(async () => {
  await t.close();
  await fake.stop();
});

test("lists both built-in models plus the models pulled into Ollama; builtin-glove is the default", async () => {
  const cookie = await t.signup();
  const r = await t.call("GET", "/api/embedding-models", { cookie });
  expect(r.status).toBe(200);
  expect(r.body.models.map((m: { name: string }) => m.name).sort()).toEqual(
    ["builtin", "builtin-glove", "ollama/all-minilm", "ollama/nomic-embed-text"].sort(),
  );
  expect(r.body.ollama).toEqual({ reachable: true, url: fake.url });
  expect(r.body.default).toBe("builtin-glove");
});

test("offers the built-in models alone, and says so, when Ollama is down", async () => {
  const cookie = await t.signup();
  await fake.down();
  const r = await t.call("GET", "/api/embedding-models", { cookie });
  expect(r.body.models).toEqual([
    { name: "builtin-glove", provider: "builtin", description: expect.stringContaining("English") },
    { name: "builtin", provider: "builtin", description: expect.any(String) },
  ]);
  expect(r.body.ollama.reachable).toBe(false);
  fake.up();
});

test("needs a session", async () => {
  expect((await t.call("GET", "/api/embedding-models")).status).toBe(401);
});
