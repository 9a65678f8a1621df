/**
 * A signed KB end to end (built binary): with the KB's public key pinned, connect installs its
 * skill; when the server then serves changed content signed by another key, or the same KB
 * unsigned (a downgrade), sync and connect fail with exit 2 and write nothing — every file under
 * $HOME, the lockfile and the yaml included, is byte for byte what it was.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTempDirs } from "../../support/temp-dir.js";
import type { RunningServer } from "../helpers.js";
import {
  cli,
  FIXTURE_SKILL,
  fixtureKb,
  SKILL_DIRS,
  serveFixture,
  snapshotTree,
} from "./fixture.js";

// RFC 8032 test 1 (docs/provisioning.md test vector) and a second, unrelated seed.
const SEED = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const PUBLIC = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
const OTHER_SEED = "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb";

const newDir = useTempDirs("carto-prov-signed-", "file");
let dir: string;
let home: string;
let kb: string;
let server: RunningServer;
const run = (...args: string[]) => cli(home, args);

async function restart(kbLines: string[]): Promise<void> {
  const port = new URL(server.url).port;
  await server.stop();
  server = await serveFixture(dir, kbLines, Number(port));
}

beforeAll(async () => {
  dir = newDir();
  home = join(dir, "home");
  kb = fixtureKb(dir);
  server = await serveFixture(dir, [`artifact_signing_seed: "${SEED}"`]);
  mkdirSync(home);
  // No `trust`: a pinned key is the consent for signed artifacts.
  writeFileSync(
    join(home, ".cartographer.yaml"),
    `server_url: ${server.url}\nsigning_keys:\n  homelab: [${PUBLIC}]\n`,
  );
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

describe("signed artifacts end to end", () => {
  it("a pinned key installs the signed skill", async () => {
    const res = await run("connect", "claude", "codex");
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).not.toMatch(/held/);
    for (const p of ["claude", "codex"]) {
      const file = join(home, SKILL_DIRS[p] as string, FIXTURE_SKILL, "SKILL.md");
      expect(readFileSync(file, "utf8")).toContain(`name: ${FIXTURE_SKILL}`);
    }
    expect((await run("status")).code).toBe(0);
  });

  it("changed content signed by another key fails sync and connect, and nothing is written", async () => {
    const skill = join(kb, "skills", FIXTURE_SKILL, "SKILL.md");
    writeFileSync(skill, `${readFileSync(skill, "utf8")}\nAn injected line.\n`);
    await restart([`artifact_signing_seed: "${OTHER_SEED}"`]);
    const before = snapshotTree(home);

    const sync = await run("sync");
    expect(sync.code).toBe(2);
    expect(sync.stderr).toMatch(/KB homelab: skill .*nothing was written/);
    const connect = await run("connect", "all");
    expect(connect.code).toBe(2);
    expect(snapshotTree(home)).toEqual(before);

    const status = await run("status");
    expect(status.code).toBe(2);
    expect(status.stdout).toMatch(/artifacts: not checked: KB homelab/);
    expect(snapshotTree(home)).toEqual(before);
  });

  it("the same KB served unsigned (a downgrade) fails the sync too, writing nothing", async () => {
    await restart([]);
    const before = snapshotTree(home);
    const sync = await run("sync");
    expect(sync.code).toBe(2);
    expect(sync.stderr).toMatch(/KB homelab: .*nothing was written/);
    expect(snapshotTree(home)).toEqual(before);
  });
});
