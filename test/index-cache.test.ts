/**
 * RAGD_INDEX_CACHE_MB bounds LanceDB's cache of index pages (vectors/connection.ts): 512 MB
 * unless set, 64 MB at least. What it changes is measured, not tested: keyword queries at ten
 * million chunks (docs/notes/2026-12-07-ten-million.md).
 */
import { expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../src/config";

test("the index cache is 512 MB unless set, and refuses less than 64 MB", () => {
  expect(loadConfig({}, {}).config.indexCacheMb).toBe(512);
  expect(loadConfig({}, { RAGD_INDEX_CACHE_MB: "3072" }).config.indexCacheMb).toBe(3072);
  expect(loadConfig({ "index-cache-mb": "2048" }, {}).config.indexCacheMb).toBe(2048);
  for (const bad of ["10", "lots", "-1"])
    expect(() => loadConfig({}, { RAGD_INDEX_CACHE_MB: bad })).toThrow(ConfigError);
});
