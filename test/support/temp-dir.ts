/**
 * The one temp-dir helper of the test suites: every directory is made under os.tmpdir() and
 * removed by a hook, also when the test fails.
 *
 *   const sandbox = useTempDirs("carto-config-");          // afterEach removes each test's dirs
 *   const shared = useTempDirs("carto-e2e-", "file");      // afterAll: shared by a file's tests
 *   const { dir, cleanup } = tempDir("carto-kb-");         // for helpers that hand out cleanup
 *
 * Call useTempDirs at the top of a test file (or a describe): it registers the hook there.
 * Registered first, its hook runs after the file's other after-hooks (they run in reverse), so
 * servers and indexes are closed before their directories go.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach } from "vitest";

export interface TempDir {
  dir: string;
  cleanup: () => void;
}

/** A fresh directory `<tmp>/<prefix>XXXXXX` and the function that removes it. */
export function tempDir(prefix = "carto-"): TempDir {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Returns a maker of fresh directories; each one is removed after the test that made it
 * (`scope: "test"`, the default) or after the file's last test (`"file"`).
 */
export function useTempDirs(prefix = "carto-", scope: "test" | "file" = "test"): () => string {
  const made: TempDir[] = [];
  const removeAll = () => {
    for (const t of made.splice(0)) t.cleanup();
  };
  if (scope === "test") afterEach(removeAll);
  else afterAll(removeAll);
  return () => {
    const t = tempDir(prefix);
    made.push(t);
    return t.dir;
  };
}
