/**
 * The trust flags through the built binary (`npm run build` first) against the real server
 * serving the Go fixture KB: `--pin-key` is the consent for a signed KB and is saved;
 * `--auto-trust` is a one-run consent for an unsigned KB and is never saved; `trust <kb>` is
 * the saved one.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { PUBLIC_KEY, SEED } from "../../client/provision/wire.js";
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

const newDir = useTempDirs("carto-trust-flags-", "file");
const servers: RunningServer[] = [];
afterAll(async () => {
  for (const s of servers.splice(0)) await s.stop();
});

async function setup(kbLines: string[]) {
  const dir = newDir();
  const home = join(dir, "home");
  mkdirSync(home);
  fixtureKb(dir);
  const server = await serveFixture(dir, kbLines);
  servers.push(server);
  writeFileSync(join(home, ".cartographer.yaml"), `server_url: ${server.url}\n`);
  const skill = join(home, SKILL_DIRS.claude as string, FIXTURE_SKILL, "SKILL.md");
  return {
    home,
    skill,
    run: (...args: string[]) => cli(home, args),
    yaml: () =>
      parse(readFileSync(join(home, ".cartographer.yaml"), "utf8")) as Record<string, unknown>,
  };
}

describe("a signed KB: --pin-key", () => {
  it("without a pinned key connect fails naming the key to pin and writes nothing; --pin-key installs and is saved", async () => {
    const s = await setup([`artifact_signing_seed: "${SEED}"`]);
    const before = snapshotTree(s.home);
    const refused = await s.run("connect", "claude");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/KB homelab: skill .* not pinned for KB homelab/);
    expect(refused.stderr).toContain(`--pin-key homelab=${PUBLIC_KEY}`);
    expect(snapshotTree(s.home)).toEqual(before);

    const bad = await s.run("connect", "claude", "--pin-key", "homelab=1234");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--pin-key takes <kb>=<public key>/);
    expect(snapshotTree(s.home)).toEqual(before);

    const pinned = await s.run("connect", "claude", "--pin-key", `homelab=${PUBLIC_KEY}`);
    expect(pinned.code, pinned.stderr).toBe(0);
    expect(readFileSync(s.skill, "utf8")).toContain(`name: ${FIXTURE_SKILL}`);
    expect(s.yaml().signing_keys).toEqual({ homelab: [PUBLIC_KEY] });
    expect(s.yaml().trust).toBeUndefined();
    // Saved: the next sync needs no flag.
    const sync = await s.run("sync");
    expect(sync.code, sync.stderr).toBe(0);
  });
});

describe("an unsigned KB: --auto-trust and trust", () => {
  it("is held without consent; --auto-trust writes it for one run (not saved); trust saves the consent", async () => {
    const s = await setup([]);
    const held = await s.run("connect", "claude");
    expect(`${held.stdout}${held.stderr}`).toMatch(
      /unsigned; run cartographer trust homelab \(or --auto-trust\)/,
    );
    expect(existsSync(s.skill)).toBe(false);

    const once = await s.run("sync", "--auto-trust");
    expect(once.code, once.stderr).toBe(0);
    expect(readFileSync(s.skill, "utf8")).toContain(`name: ${FIXTURE_SKILL}`);
    expect(s.yaml().trust).toBeUndefined();

    expect((await s.run("trust", "homelab")).code).toBe(0);
    expect(s.yaml().trust).toEqual(["homelab"]);
    const sync = await s.run("sync");
    expect(sync.code, sync.stderr).toBe(0);
    expect(`${sync.stdout}${sync.stderr}`).not.toMatch(/unsigned; run cartographer trust/);
    expect(existsSync(s.skill)).toBe(true);
  });
});
