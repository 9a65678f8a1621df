/**
 * The Go implementation's fixture KB lives in shared/, beside the repository (CI lays a copy of
 * shared/ next to its clone). Fails loudly when it is missing: these tests must not skip.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";

const REPO_ROOT = resolve(import.meta.dirname, "../..");

export const GO_FIXTURE_KB: string = (() => {
  const beside = resolve(REPO_ROOT, "../shared/fixtures/go-kb-homelab-lite");
  if (existsSync(beside)) return beside;
  throw new Error(
    `the Go fixture KB is missing: expected ${beside} (shared/ beside the repository)`,
  );
})();

/** The content hashes the Go implementation computed (shared/fixtures/go-content-hash). */
export const GO_HASH_VECTORS: string = (() => {
  const beside = resolve(REPO_ROOT, "../shared/fixtures/go-content-hash/vectors.json");
  if (existsSync(beside)) return beside;
  throw new Error(
    `the Go content-hash vectors are missing: expected ${beside} (shared/ beside the repository)`,
  );
})();
