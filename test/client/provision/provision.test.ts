/**
 * The provisioning engine on a real temp disk with a real (tiny, pure) target: create, no
 * rewrite when unchanged, update, user edits kept, deletions restored, prune with its folders,
 * foreign files, symlinks refused, executable bits, sections written whole or not at all, the
 * lockfile (0600, corrupt → clear error), and KB collisions.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ClientConfig, ProviderBinding } from "../../../src/client/config.js";
import { lockfilePath } from "../../../src/client/provision/lockfile.js";
import { mergeArtifacts } from "../../../src/client/provision/merge.js";
import { printSync, statusJson } from "../../../src/client/provision/report.js";
import { provisionBindings } from "../../../src/client/provision/run.js";
import { acquireProcessLock } from "../../../src/common/process-lock.js";
import { silentLogger } from "../../../src/logger.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { prepared, recordingIo, skill, snapshot, testTarget } from "./support.js";

const newDir = useTempDirs("carto-prov-engine-");
const config: ClientConfig = {
  server_url: "http://127.0.0.1:1",
  server_name: "cartographer",
  providers: [],
};
const binding: ProviderBinding = { name: "claude" };
const targetFor = () => testTarget;

const ops = {
  files: { "SKILL.md": "---\nname: ops\n---\nOps.\n", "run.sh": "#!/bin/sh\necho hi\n" },
  exec: ["run.sh"],
};
const opsSkill = () => skill("a", "ops", ops.files, { exec: ops.exec });

async function sync(home: string, arts = [opsSkill()], force = false) {
  const io = recordingIo(home);
  const result = await provisionBindings(io, config, [binding], prepared(arts), {
    write: true,
    force,
    targetFor,
  });
  const exit = printSync(io, result);
  return { io, result, exit };
}

async function status(home: string, arts = [opsSkill()]) {
  const io = recordingIo(home);
  const result = await provisionBindings(io, config, [binding], prepared(arts), {
    write: false,
    force: false,
    targetFor,
  });
  return statusJson(io, result);
}

describe("provisioning engine", () => {
  it("creates files with their executable bit, records them in a 0600 lockfile, and rewrites nothing when unchanged", async () => {
    const home = newDir();
    const first = await sync(home);
    expect(first.exit, first.io.err()).toBe(0);
    const dir = path.join(home, ".testtool", "skills", "ops");
    expect(await fs.readFile(path.join(dir, "SKILL.md"), "utf8")).toBe(ops.files["SKILL.md"]);
    expect((await fs.stat(path.join(dir, "run.sh"))).mode & 0o777).toBe(0o755);
    expect((await fs.stat(path.join(dir, "SKILL.md"))).mode & 0o777).toBe(0o644);
    const settings = JSON.parse(
      await fs.readFile(path.join(home, ".testtool", "settings.json"), "utf8"),
    );
    expect(settings.ours).toEqual(["ops"]);
    const lockFile = lockfilePath(home);
    expect((await fs.stat(lockFile)).mode & 0o777).toBe(0o600);
    const lock = JSON.parse(await fs.readFile(lockFile, "utf8"));
    expect(lock.version).toBe(1);
    expect(lock.bindings[0].files.map((f: { path: string }) => f.path)).toEqual([
      path.join(dir, "SKILL.md"),
      path.join(dir, "run.sh"),
    ]);
    expect(lock.bindings[0].dirs).toEqual([path.join(home, ".testtool", "skills"), dir]);
    expect((await status(home)).state).toBe("in-sync");

    const before = await snapshot(home);
    const again = await sync(home);
    expect(again.exit).toBe(0);
    expect(again.io.out()).toContain("0 written, 3 unchanged");
    expect(await snapshot(home)).toEqual(before); // same bytes, modes and mtimes, lockfile included
  });

  it("updates what the KB changed, keeps a hand-edited file (exit 1) until --force, and restores a deleted one", async () => {
    const home = newDir();
    await sync(home);
    const dir = path.join(home, ".testtool", "skills", "ops");
    await fs.writeFile(path.join(dir, "SKILL.md"), "my own notes\n");
    await fs.rm(path.join(dir, "run.sh"));
    const changed = skill(
      "a",
      "ops",
      { ...ops.files, "SKILL.md": "---\nname: ops\n---\nOps v2.\n" },
      { exec: ops.exec },
    );

    const s = await status(home, [changed]);
    expect(s.state).toBe("drift");
    const reasons = Object.fromEntries(
      s.providers[0]?.paths.map((p) => [path.basename(p.path), p.reason]) ?? [],
    );
    expect(reasons["SKILL.md"]).toMatch(/edited by hand/);
    expect(reasons["run.sh"]).toBe("deleted by hand");
    expect(s.providers[0]?.paths.every((p) => p.path.startsWith("~/"))).toBe(true);

    const kept = await sync(home, [changed]);
    expect(kept.exit).toBe(1);
    expect(kept.io.err()).toMatch(/SKILL\.md: edited by hand \(kept; sync --force overwrites it\)/);
    expect(await fs.readFile(path.join(dir, "SKILL.md"), "utf8")).toBe("my own notes\n");
    expect((await fs.stat(path.join(dir, "run.sh"))).mode & 0o777).toBe(0o755);
    expect((await status(home, [changed])).state).toBe("drift"); // still reported

    const forced = await sync(home, [changed], true);
    expect(forced.exit).toBe(0);
    expect(await fs.readFile(path.join(dir, "SKILL.md"), "utf8")).toMatch(/Ops v2/);
    expect((await status(home, [changed])).state).toBe("in-sync");
  });

  it("prunes a skill removed from the KB with the folders it created, never the root; an edited orphan stays", async () => {
    const home = newDir();
    const other = skill("a", "other", { "SKILL.md": "other\n" });
    await sync(home, [opsSkill(), other]);
    await fs.writeFile(path.join(home, ".testtool", "skills", "other", "SKILL.md"), "edited\n");
    const res = await sync(home, []);
    expect(res.exit).toBe(1); // the edited orphan is kept
    await expect(fs.stat(path.join(home, ".testtool", "skills", "ops"))).rejects.toThrow();
    expect(
      await fs.readFile(path.join(home, ".testtool", "skills", "other", "SKILL.md"), "utf8"),
    ).toBe("edited\n");
    expect((await fs.stat(path.join(home, ".testtool"))).isDirectory()).toBe(true);
    const settings = JSON.parse(
      await fs.readFile(path.join(home, ".testtool", "settings.json"), "utf8"),
    );
    expect(settings.ours).toBeUndefined();

    expect((await sync(home, [], true)).exit).toBe(0);
    await expect(fs.stat(path.join(home, ".testtool", "skills"))).rejects.toThrow();
    expect((await fs.stat(path.join(home, ".testtool"))).isDirectory()).toBe(true);
    const lock = JSON.parse(await fs.readFile(lockfilePath(home), "utf8"));
    expect(lock.bindings).toEqual([]);
  });

  it("keeps a foreign file in the way and never writes through a symlinked folder", async () => {
    const home = newDir();
    const outside = newDir();
    const dir = path.join(home, ".testtool", "skills", "ops");
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, "SKILL.md"), "mine\n");
    await fs.symlink(outside, path.join(home, ".testtool", "skills", "evil"));
    const evil = skill("a", "evil", { "SKILL.md": "x\n" });
    const res = await sync(home, [opsSkill(), evil]);
    expect(res.exit).toBe(1);
    expect(res.io.err()).toMatch(/SKILL\.md: not written by cartographer/);
    expect(res.io.err()).toMatch(/evil.*is a symlink/);
    expect(await fs.readFile(path.join(dir, "SKILL.md"), "utf8")).toBe("mine\n");
    expect(await fs.readdir(outside)).toEqual([]);
    // --force replaces the foreign file but still never follows the symlink.
    const forced = await sync(home, [opsSkill(), evil], true);
    expect(await fs.readFile(path.join(dir, "SKILL.md"), "utf8")).toBe(ops.files["SKILL.md"]);
    expect(forced.exit).toBe(1);
    expect(await fs.readdir(outside)).toEqual([]);
  });

  it("leaves an unparsable shared file byte for byte and still writes the provider's other files", async () => {
    const home = newDir();
    const settings = path.join(home, ".testtool", "settings.json");
    await fs.mkdir(path.dirname(settings), { recursive: true });
    await fs.writeFile(settings, "{ not json");
    const res = await sync(home);
    expect(res.exit).toBe(2);
    expect(res.io.err()).toMatch(/settings\.json \(skills-list\).*not JSON/);
    expect(await fs.readFile(settings, "utf8")).toBe("{ not json");
    expect(
      await fs.readFile(path.join(home, ".testtool", "skills", "ops", "SKILL.md"), "utf8"),
    ).toBe(ops.files["SKILL.md"]);
  });

  it("refuses a corrupt lockfile with its name and the fix, writing nothing", async () => {
    const home = newDir();
    await fs.writeFile(lockfilePath(home), "{ oops");
    const io = recordingIo(home);
    await expect(
      provisionBindings(io, config, [binding], prepared([opsSkill()]), {
        write: true,
        force: false,
        targetFor,
      }),
    ).rejects.toThrow(
      /~\/\.cartographer-sync\.lock\.json is not a valid provisioning lockfile.*Delete it and run cartographer sync/,
    );
    await expect(fs.stat(path.join(home, ".testtool"))).rejects.toThrow();
    // After deleting it, an existing different file is the user's: kept, not overwritten.
    await fs.rm(lockfilePath(home));
    await fs.mkdir(path.join(home, ".testtool", "skills", "ops"), { recursive: true });
    await fs.writeFile(path.join(home, ".testtool", "skills", "ops", "SKILL.md"), "mine\n");
    expect((await sync(home)).exit).toBe(1);
    expect(
      await fs.readFile(path.join(home, ".testtool", "skills", "ops", "SKILL.md"), "utf8"),
    ).toBe("mine\n");
  });
});

describe("one writing run at a time", () => {
  it("waits for another run's lock, and gives up after the wait naming the holder, writing nothing", async () => {
    const home = newDir();
    const io = recordingIo(home);
    const lockOpts = {
      label: "provisioning",
      purpose: "test",
      displayPath: "x",
      logger: silentLogger,
    };
    const held = await acquireProcessLock(`${lockfilePath(home)}.lock`, lockOpts);
    const run = (lockWaitMs: number) =>
      provisionBindings(io, config, [binding], prepared([opsSkill()]), {
        write: true,
        force: false,
        targetFor,
        lockWaitMs,
      });
    await expect(run(200)).rejects.toThrow(
      /provisioning is in use by another cartographer process: pid \d+ .*\(test since .*nothing was written/,
    );
    await expect(fs.stat(path.join(home, ".testtool"))).rejects.toThrow();
    setTimeout(() => void held.release(), 150);
    const result = await run(5_000);
    expect(result.runs[0]?.outcome?.failed.size).toBe(0);
    expect(
      await fs.readFile(path.join(home, ".testtool", "skills", "ops", "SKILL.md"), "utf8"),
    ).toBe(ops.files["SKILL.md"]);
  });
});

describe("merging the KBs of one provider", () => {
  it("installs identical content once, prefers a KB's artifact to the bundled one, and holds a real collision", () => {
    const bundleA = skill("a", "kb-create", { "SKILL.md": "bundled\n" }, { source: "bundle" });
    const bundleB = skill("b", "kb-create", { "SKILL.md": "bundled\n" }, { source: "bundle" });
    const ownB = skill("b", "kb-import", { "SKILL.md": "b's own\n" });
    const bundleImport = skill(
      "a",
      "kb-import",
      { "SKILL.md": "bundled import\n" },
      { source: "bundle" },
    );
    const opsA = skill("a", "ops", { "SKILL.md": "A\n" });
    const opsB = skill("b", "ops", { "SKILL.md": "B\n" });
    const m = mergeArtifacts([bundleA, bundleB, ownB, bundleImport, opsA, opsB], ["a", "b"]);
    expect(m.artifacts.map((x) => `${x.name}@${x.kb}`)).toEqual(["kb-create@a", "kb-import@b"]);
    expect(m.held.map((h) => `${h.name}@${h.kb}`)).toEqual(["ops@a", "ops@b"]);
    expect(m.held[0]?.reason).toMatch(
      /KBs a, b each have a skill "ops" with different content; neither is installed/,
    );
  });
});
