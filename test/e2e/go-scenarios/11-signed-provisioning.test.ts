/**
 * Go scenario 11_signed_provisioning: a KB whose artifacts are signed (`kbs[].artifact_signing_seed`
 * in the server yaml) and a client that pins the matching public key (`connect claude --pin-key
 * kb=<hex>`): the signed skill is installed. The server restarts with ANOTHER seed: `sync` fails
 * closed with an actionable "unknown signing key" error and leaves the provider file and the
 * lockfile byte for byte as they were. The KB folder holds the skill before `--init` makes it a KB.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, type RunningServer, runBin, startServer, tempDir } from "../helpers.js";

/** RFC 8032 test vector 1: seed and its public key. */
const FIRST_SEED = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const FIRST_PUBLIC = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
const SECOND_SEED = "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb";

const sandbox = tempDir("carto-go11-");
const kb = join(sandbox.dir, "kb");
const home = join(sandbox.dir, "sandbox");
const config = join(sandbox.dir, "server.yaml");
const env = cleanEnv({ HOME: home });
const skillFile = join(home, ".claude", "skills", "signed", "SKILL.md");
const lockfile = join(home, ".cartographer-sync.lock.json");
let server: RunningServer | undefined;
let port = 0;

async function serveWithSeed(seed: string): Promise<RunningServer> {
  writeFileSync(
    config,
    `http: "127.0.0.1:${port}"\ninit: true\nkbs:\n  - path: ${kb}\n    artifact_signing_seed: ${seed}\n`,
  );
  const s = await startServer(["--config", config], {
    cwd: sandbox.dir,
    env: cleanEnv({ CARTOGRAPHER_AUTH: "false" }),
  });
  port = Number(new URL(s.url).port);
  return s;
}

beforeAll(async () => {
  mkdirSync(join(kb, "skills", "signed"), { recursive: true });
  writeFileSync(
    join(kb, "skills", "signed", "SKILL.md"),
    "---\nname: signed\ndescription: Signed provisioning E2E fixture\n---\nsigned content\n",
  );
  mkdirSync(home);
  server = await serveWithSeed(FIRST_SEED);
}, 60_000);
afterAll(async () => {
  await server?.stop();
  sandbox.cleanup();
});

describe("Go scenario 11: signed provisioning, fail-closed rotation", () => {
  it("connect with the pinned key installs the signed skill", async () => {
    const r = await runBin(
      [
        "connect",
        "claude",
        "--server-url",
        `${server?.url}/mcp`,
        "--pin-key",
        `kb=${FIRST_PUBLIC}`,
      ],
      { cwd: home, env },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(skillFile, "utf8")).toContain("signed content");
    expect(readFileSync(lockfile, "utf8")).toContain("signed");
  }, 60_000);

  it("a server signing with an unpinned key: sync fails, names the unknown key, changes nothing", async () => {
    const skillBefore = readFileSync(skillFile);
    const lockBefore = readFileSync(lockfile);
    await server?.stop();
    server = await serveWithSeed(SECOND_SEED);
    const r = await runBin(["sync"], { cwd: home, env });
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toContain("unknown signing key");
    expect(readFileSync(skillFile).equals(skillBefore)).toBe(true);
    expect(readFileSync(lockfile).equals(lockBefore)).toBe(true);
  }, 90_000);
});
