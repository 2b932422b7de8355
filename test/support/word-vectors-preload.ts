/**
 * Test preload (bunfig.toml): derives the builtin-glove word table when it is missing
 * or stale, so that `bun test` works on a fresh clone; fails the run clearly when the
 * package it is derived from is not installed.
 */
import { deriveWordVectors } from "../../scripts/build-word-vectors";

deriveWordVectors();
