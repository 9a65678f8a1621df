/**
 * docs/decisions.md "`reconnect` provisions like `sync`" and "`doctor` checks the artifacts",
 * against the real built server serving the fixture KB (client commands in-process, sandbox $HOME,
 * real disk): `reconnect` leaves the artifacts exactly as a `sync` would — a skill added to the KB
 * written, one deleted by hand restored, unchanged files not rewritten (mtimes equal) — and
 * `doctor`, offline, reports the managed artifacts the lockfile records: a file deleted or edited
 * by hand makes the provider `partial`, naming it.
 */
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, doctor, reconnect, status, sync } from "../../../src/client/commands.js";
import { recordingIo } from "../../client/provision/support.js";
import { useTempDirs } from "../../support/temp-dir.js";
import type { RunningServer } from "../helpers.js";
import {
  FIXTURE_SKILL,
  fixtureKb,
  readLock,
  serveFixture,
  writeArtifact as writeKbArtifact,
} from "./fixture.js";

const newDir = useTempDirs("carto-prov-reconnect-", "file");
let dir: string;
let home: string;
let server: RunningServer;
const ADDED = "---\nname: added\ndescription: added while connected\n---\nUse search first.\n";
const skillFile = (name: string) => join(home, ".claude", "skills", name, "SKILL.md");

const writeArtifact = (path: string, content: string) => writeKbArtifact(server.url, path, content);

beforeAll(async () => {
  dir = newDir();
  home = join(dir, "home");
  fixtureKb(dir);
  server = await serveFixture(dir, ["allow_artifact_write: true"]);
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, ".cartographer.yaml"), `server_url: ${server.url}\ntrust: [homelab]\n`);
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

describe("reconnect and doctor see the artifacts", () => {
  it("reconnect materializes the artifacts as sync would, without rewriting unchanged files", async () => {
    const io = recordingIo(home);
    expect(await connect(io, { providers: ["claude"] }), io.err()).toBe(0);
    const kept = skillFile(FIXTURE_SKILL);
    const mtime = statSync(kept).mtimeMs;
    await writeArtifact("skills/added/SKILL.md", ADDED);
    rmSync(skillFile("kb-create"));

    const re = recordingIo(home);
    expect(await reconnect(re), re.err()).toBe(0);
    expect(readFileSync(skillFile("added"), "utf8")).toBe(ADDED);
    expect(readFileSync(skillFile("kb-create"), "utf8")).toMatch(/^---\nname: kb-create/);
    expect(statSync(kept).mtimeMs).toBe(mtime); // not pruned and rewritten
    const origins = readLock(home).bindings[0]?.files.map((f) => f.origin) ?? [];
    expect(origins).toContain("homelab/skill/added");
    const st = recordingIo(home);
    expect(await status(st), st.out()).toBe(0);
  });

  it("doctor (offline) names files deleted or edited by hand as partial, in text and JSON; in sync again after sync --force", async () => {
    writeFileSync(skillFile(FIXTURE_SKILL), "edited by hand\n");
    rmSync(skillFile("added"));
    const io = recordingIo(home);
    expect(await doctor(io), io.out()).toBe(1);
    expect(io.out()).toMatch(/claude \(user\) artifacts: partial \(\d+ managed\)/);
    expect(io.out()).toContain(
      `~/.claude/skills/${FIXTURE_SKILL}/SKILL.md: edited by hand (sync keeps it; sync --force restores it)`,
    );
    expect(io.out()).toContain(
      "~/.claude/skills/added/SKILL.md: deleted by hand (sync writes it again)",
    );

    const js = recordingIo(home);
    expect(await doctor(js, { json: true })).toBe(1);
    const json = JSON.parse(js.out());
    expect(json.state).toBe("drift");
    expect(json.artifacts.providers).toEqual([
      expect.objectContaining({
        provider: "claude",
        scope: "user",
        state: "partial",
        paths: [
          expect.objectContaining({ path: "~/.claude/skills/added/SKILL.md", problem: "missing" }),
          expect.objectContaining({
            path: `~/.claude/skills/${FIXTURE_SKILL}/SKILL.md`,
            problem: "edited",
          }),
        ],
      }),
    ]);

    const fix = recordingIo(home);
    expect(await sync(fix, { force: true }), fix.err()).toBe(0);
    const ok = recordingIo(home);
    expect(await doctor(ok), ok.out()).toBe(0);
    expect(ok.out()).toMatch(/claude \(user\) artifacts: in-sync/);
  });
});
