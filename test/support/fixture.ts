/**
 * The Go implementation's fixture KB and content-hash vectors, copied into the repository
 * (test/fixtures/) so a user's clone tests green with nothing beside it. Fails loudly when a
 * file is missing: these tests must not skip.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";

const FIXTURES = resolve(import.meta.dirname, "../fixtures");

function fixturePath(relative: string): string {
  const path = resolve(FIXTURES, relative);
  if (existsSync(path)) return path;
  throw new Error(
    `the test fixture is missing: expected test/fixtures/${relative} in the repository`,
  );
}

export const GO_FIXTURE_KB: string = fixturePath("go-kb-homelab-lite");

/** The content hashes the Go implementation computed (test/fixtures/go-content-hash). */
export const GO_HASH_VECTORS: string = fixturePath("go-content-hash/vectors.json");

/** Go's vectors for frontmatter with empty block-list and flow-list items. */
export const GO_LIST_ITEM_VECTORS: string = fixturePath("go-content-hash/vectors-list-items.json");
