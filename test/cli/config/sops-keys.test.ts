/**
 * Which age key file each KB gets (src/cli/config/sops-keys.ts), in the Go order (D53):
 * kbs[].sops_age_key_file, then <sops.age_key_dir>/<kb>.age when it exists, then
 * sops.age_key_file; CARTOGRAPHER_SOPS_AGE_KEY_DIR / _FILE override the sops block.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveServerConfig } from "../../../src/cli/config/resolve.js";
import { useTempDirs } from "../../support/temp-dir.js";

const newDir = useTempDirs("carto-sopskeys-");

/** A working dir with KBs `a`, `b`, `c` and the key files `keys/` holds. */
function sandbox(keyFiles: string[]): string {
  const cwd = newDir();
  for (const kb of ["a", "b", "c"]) {
    mkdirSync(join(cwd, kb, "data"), { recursive: true });
    writeFileSync(join(cwd, kb, "data", "index.md"), "---\ntype: Index\n---\n");
  }
  mkdirSync(join(cwd, "keys", "per-kb"), { recursive: true });
  for (const f of keyFiles) writeFileSync(join(cwd, "keys", f), "# key\n");
  return cwd;
}

const CONFIG = `
kbs:
  - path: a
    sops_age_key_file: keys/a-own.age
  - path: b
  - path: c
sops:
  age_key_file: keys/global.age
  age_key_dir: keys/per-kb
`;

function keysOf(cwd: string, env: Record<string, string> = {}) {
  writeFileSync(join(cwd, "c.yaml"), CONFIG);
  const c = resolveServerConfig({ config: "c.yaml" }, env, cwd);
  return { keys: Object.fromEntries(c.kbs.map((k) => [k.name, k.sopsAgeKeyFile])), c };
}

describe("sops age key files", () => {
  it("per-KB key, then <age_key_dir>/<name>.age when present, then age_key_file", () => {
    const cwd = sandbox(["a-own.age", "per-kb/b.age", "global.age"]);
    const { keys, c } = keysOf(cwd);
    expect(keys).toEqual({
      a: join(cwd, "keys", "a-own.age"),
      b: join(cwd, "keys", "per-kb", "b.age"),
      c: join(cwd, "keys", "global.age"),
    });
    expect(c.warnings.filter((w) => /sops|not supported/.test(w))).toEqual([]);
  });

  it("CARTOGRAPHER_SOPS_AGE_KEY_FILE and _DIR override the sops block", () => {
    const cwd = sandbox(["a-own.age", "env.age"]);
    mkdirSync(join(cwd, "env-dir"));
    writeFileSync(join(cwd, "env-dir", "c.age"), "# key\n");
    const { keys } = keysOf(cwd, {
      CARTOGRAPHER_SOPS_AGE_KEY_FILE: "keys/env.age",
      CARTOGRAPHER_SOPS_AGE_KEY_DIR: "env-dir",
    });
    expect(keys).toEqual({
      a: join(cwd, "keys", "a-own.age"),
      b: join(cwd, "keys", "env.age"),
      c: join(cwd, "env-dir", "c.age"),
    });
  });

  it("a configured key file that does not exist is a startup warning naming the KB, not fatal", () => {
    const cwd = sandbox(["global.age"]);
    const { keys, c } = keysOf(cwd);
    expect(keys.a).toBe(join(cwd, "keys", "a-own.age"));
    expect(c.warnings).toContain(
      `KB a: sops age key file ${join(cwd, "keys", "a-own.age")} does not exist; its secret tools will fail until it does`,
    );
  });

  it("without any sops setting no KB has a key (the secret tools answer not_configured)", () => {
    const cwd = sandbox([]);
    writeFileSync(join(cwd, "c.yaml"), "kbs:\n  - path: a\n");
    const c = resolveServerConfig({ config: "c.yaml" }, {}, cwd);
    expect(c.kbs[0]?.sopsAgeKeyFile).toBeUndefined();
  });
});
