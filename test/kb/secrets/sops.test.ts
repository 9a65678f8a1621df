/**
 * The secret tools against the real `sops` and `age` binaries: files encrypted for a fresh age
 * key, resolved by secret_refs and by a legacy secrets_source, rotated with secret_set (still
 * encrypted on disk and in git, one commit, the new value resolvable), refused with the wrong
 * key. Skipped, with the reason in the suite name, when either binary is not on PATH (sops is
 * not a Debian bookworm package; `apt-get install age` gives age).
 */
import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SopsSettings } from "../../../src/kb/core/types.js";
import { git, okJson, type ServicesKb, servicesKb, textOf } from "../../support/services-kb.js";
import { useTempDirs } from "../../support/temp-dir.js";

function onPath(binary: string): boolean {
  try {
    execFileSync(binary, ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const HAVE = onPath("sops") && onPath("age-keygen");
const SUITE = HAVE
  ? "secret tools with real sops + age"
  : "secret tools with real sops + age — SKIPPED: sops or age-keygen not on PATH";
const ROTATED = "CANARY-rotated-4be1d0";

function ageKey(file: string): string {
  execFileSync("age-keygen", ["-o", file], { stdio: "pipe" });
  return execFileSync("age-keygen", ["-y", file]).toString().trim();
}

describe.skipIf(!HAVE)(SUITE, () => {
  const newDir = useTempDirs("carto-age-", "file");
  let kb: ServicesKb;
  let keys: string;
  let sops: SopsSettings;
  beforeAll(async () => {
    keys = newDir();
    const keyFile = join(keys, "kb.age");
    const recipient = ageKey(keyFile);
    sops = { ageKeyFile: keyFile, env: { ...process.env } };
    kb = await servicesKb({
      files: {
        ".sops.yaml": `creation_rules:\n  - path_regex: secrets/.*\\.sops\\.yaml$\n    age: ${recipient}\n`,
        "secrets/keycloak.sops.yaml": "admin:\n  password: hunter2\n  user: admin\n",
        "secrets/legacy.sops.yaml": "pw: a\nnested:\n  k: b\n",
        "services/keycloak.md":
          "---\ntype: Service\ntitle: Keycloak\nsecret_refs: [ADMIN_PASSWORD=secrets/keycloak.sops.yaml#/admin/password]\n---\n",
        "services/legacy.md":
          "---\ntype: Service\ntitle: Legacy\nsecrets_source: secrets/legacy.sops.yaml\n---\n",
      },
      prepare: async (root) => {
        for (const f of ["secrets/keycloak.sops.yaml", "secrets/legacy.sops.yaml"]) {
          execFileSync("sops", ["--encrypt", "--in-place", f], {
            cwd: root,
            env: { ...process.env, SOPS_AGE_KEY_FILE: keyFile },
          });
        }
      },
      sops: () => sops,
    });
  });
  afterAll(async () => {
    await kb?.cleanup();
  });

  it("secret_resolve returns exactly the declared refs", async () => {
    expect(okJson(await kb.call("secret_resolve", { id: "services/keycloak" }))).toEqual({
      id: "services/keycloak",
      secrets: { ADMIN_PASSWORD: "hunter2" },
      source: "secret_refs",
    });
  });

  it("service_get resolve_secrets decrypts a legacy secrets_source whole", async () => {
    const out = okJson(
      await kb.call("service_get", { id: "services/legacy", resolve_secrets: true }),
    );
    expect(out.secrets).toEqual({ pw: "a", "/nested/k": "b" });
    expect(out.secrets_source).toBe("secrets/legacy.sops.yaml");
  });

  it("secret_set rotates one value: encrypted on disk and in git, one commit, resolvable", async () => {
    const res = okJson(
      await kb.call("secret_set", {
        path: "secrets/keycloak.sops.yaml",
        key: "/admin/password",
        value: ROTATED,
      }),
    );
    expect(res).toEqual({
      path: "secrets/keycloak.sops.yaml",
      key: "/admin/password",
      updated: true,
    });
    expect(git(kb.root, ["log", "-1", "--format=%s"]).trim()).toBe(
      "secret_set: secrets/keycloak.sops.yaml",
    );
    const onDisk = await readFile(join(kb.root, "secrets/keycloak.sops.yaml"), "utf8");
    expect(onDisk).toContain("ENC[");
    expect(onDisk).not.toContain(ROTATED);
    expect(git(kb.root, ["log", "-p", "--all"])).not.toContain(ROTATED);
    expect(git(kb.root, ["status", "--porcelain", "--untracked-files=all"])).toBe("");
    const again = okJson(await kb.call("secret_resolve", { id: "services/keycloak" }));
    expect(again.secrets).toEqual({ ADMIN_PASSWORD: ROTATED });
    expect(JSON.stringify(kb.audit.records)).not.toContain(ROTATED);
    expect(kb.logger.lines.join("\n")).not.toContain(ROTATED);
  });

  it("a key that is not among the recipients is not_configured, by exit code only", async () => {
    const other = join(keys, "other.age");
    ageKey(other);
    const saved = sops.ageKeyFile;
    sops.ageKeyFile = other;
    try {
      const res = await kb.call("secret_resolve", { id: "services/keycloak" });
      expect(textOf(res)).toMatch(
        /^not_configured: sops could not decrypt secrets\/keycloak\.sops\.yaml \(exit \d+\): check that kbs\[\]\.sops_age_key_file/,
      );
    } finally {
      sops.ageKeyFile = saved;
    }
  });
});

it.runIf(!HAVE)("real sops tests skipped: sops or age-keygen is not on PATH", () => {
  expect(HAVE).toBe(false);
});
