/**
 * A planted secret never leaves the call that carries it: whatever path secret_set and
 * secret_resolve take (not configured, no sops binary, a sops that fails, a sops that leaves
 * the value in clear, bad paths and keys), the value is absent from every audit record, every
 * log line, every error text, the git history and the search index. The failing "sops" runs
 * are real processes (`false`, `true` from coreutils) standing in for a broken sops install.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SopsSettings } from "../../../src/kb/core/types.js";
import { git, type ServicesKb, servicesKb, textOf } from "../../support/services-kb.js";
import { useTempDirs } from "../../support/temp-dir.js";

const CANARY = "CANARY-s3cr3t-9f1c2e7a";

const FILES = {
  "services/app.md":
    "---\ntype: Service\ntitle: App\nsecret_refs: [PW=secrets/app.sops.yaml#/pw]\n---\n",
  "secrets/app.sops.yaml":
    "pw: ENC[AES256_GCM,data:xx,iv:yy,tag:zz,type:str]\nsops:\n    version: 3.9.0\n",
  "secrets/plain.sops.yaml": "pw: not-encrypted\n",
};

/** Every secret_set / secret_resolve shape a caller could send, the canary in each field. */
const CALLS: [string, Record<string, unknown>][] = [
  ["secret_set", { path: "secrets/app.sops.yaml", key: "/pw", value: CANARY }],
  ["secret_set", { path: "secrets/app.sops.yaml", key: "/new_key", value: CANARY }],
  ["secret_set", { path: "secrets/plain.sops.yaml", key: "/pw", value: CANARY }],
  ["secret_set", { path: "secrets/missing.sops.yaml", key: "/pw", value: CANARY }],
  ["secret_set", { path: "data/index.md", key: "/pw", value: CANARY }],
  ["secret_set", { path: "secrets/app.sops.yaml", key: "pw", value: CANARY }],
  ["secret_resolve", { id: "services/app" }],
  ["secret_resolve", { id: "services/app", names: [CANARY] }],
  ["service_get", { id: "services/app", resolve_secrets: true }],
];

async function everything(kb: ServicesKb, errors: string[]): Promise<string> {
  const search = await kb.call("search", { query: CANARY });
  return [
    JSON.stringify(kb.audit.records),
    kb.logger.lines.join("\n"),
    errors.join("\n"),
    git(kb.root, ["log", "-p", "--all"]),
    textOf(search),
  ].join("\n");
}

describe.each<[string, ((dir: string) => SopsSettings) | undefined]>([
  ["no sops_age_key_file", undefined],
  ["no sops binary on PATH", (dir) => ({ ageKeyFile: join(dir, "k"), env: { PATH: dir } })],
  [
    "a sops that always fails",
    (dir) => ({ ageKeyFile: join(dir, "k"), env: { PATH: "/usr/bin:/bin" }, binary: "false" }),
  ],
  [
    "a sops that succeeds without doing anything",
    (dir) => ({ ageKeyFile: join(dir, "k"), env: { PATH: "/usr/bin:/bin" }, binary: "true" }),
  ],
])("the canary with %s", (_label, makeSops) => {
  const newDir = useTempDirs("carto-canary-", "file");
  let kb: ServicesKb;
  let dir: string;
  const errors: string[] = [];
  beforeAll(async () => {
    dir = newDir();
    await writeFile(join(dir, "k"), "# age key placeholder\n");
    kb = await servicesKb({ files: FILES, sops: makeSops ? () => makeSops(dir) : undefined });
    for (const [tool, args] of CALLS) {
      const res = await kb.call(tool, args);
      expect(res.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      errors.push(textOf(res));
    }
  });
  afterAll(async () => {
    await kb.cleanup();
  });

  it("never appears in the audit, the logs, the errors, git or the search index", async () => {
    expect(errors).toHaveLength(CALLS.length);
    expect(await everything(kb, errors)).not.toContain(CANARY);
  });

  it("the audit records secret_set's path only (never key or value)", () => {
    const sets = kb.audit.records.filter((r) => r.tool === "secret_set");
    expect(sets.length).toBeGreaterThan(0);
    for (const r of sets) expect(Object.keys(r.resources ?? {}).sort()).toEqual(["path"]);
  });

  it("no encrypted file was changed and no temporary copy was left behind", () => {
    expect(git(kb.root, ["status", "--porcelain", "--untracked-files=all"])).toBe("");
  });
});
