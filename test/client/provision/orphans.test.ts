/**
 * docs/decisions.md "A lock entry no saved binding owns", against the real built server serving the
 * fixture KB (client commands in-process, sandbox $HOME, real disk): a provider binding removed
 * from .cartographer.yaml by hand leaves its lockfile entry and files. status reports it (exit 1,
 * naming the provider and the fix), sync says so once and leaves everything, doctor reports it, and
 * `disconnect <provider>` removes its artifacts, entries and lock entry although the yaml no longer
 * lists it.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { connect, disconnect, doctor, status, sync } from "../../../src/client/commands.js";
import { FIXTURE_SKILL, fixtureKb, readLock, serveFixture } from "../../e2e/client/fixture.js";
import type { RunningServer } from "../../e2e/helpers.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { recordingIo } from "./support.js";

const newDir = useTempDirs("carto-prov-orphans-", "file");
let dir: string;
let home: string;
let project: string;
let server: RunningServer;
const yamlFile = () => join(home, ".cartographer.yaml");
const projectSkill = () => join(project, ".agents", "skills", FIXTURE_SKILL, "SKILL.md");
const MESSAGE =
  "codex (project scope, ~/project) is no longer in .cartographer.yaml, but the lockfile still records its artifacts";

beforeAll(async () => {
  dir = newDir();
  home = join(dir, "home");
  project = join(home, "project");
  fixtureKb(dir);
  server = await serveFixture(dir, []);
  mkdirSync(project, { recursive: true });
  writeFileSync(yamlFile(), `server_url: ${server.url}\ntrust: [homelab]\n`);
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

describe("a provider removed from the yaml by hand", () => {
  it("status reports the orphaned lock entry (exit 1, provider and fix); sync says it once and leaves it; doctor reports it", async () => {
    const io = recordingIo(home);
    expect(await connect(io, { providers: ["claude"] }), io.err()).toBe(0);
    const inProject = recordingIo(home, project);
    await connect(inProject, { providers: ["codex"], scope: "project" });
    expect(existsSync(projectSkill()), inProject.err()).toBe(true);
    // The user deletes the codex binding from the yaml by hand.
    const doc = parseYaml(readFileSync(yamlFile(), "utf8"));
    doc.providers = doc.providers.filter((p: { name: string }) => p.name !== "codex");
    writeFileSync(yamlFile(), stringifyYaml(doc));

    const st = recordingIo(home);
    expect(await status(st), st.out()).toBe(1);
    expect(st.out()).toContain(MESSAGE);
    expect(st.out()).toContain("run cartographer disconnect codex to remove them");
    const js = recordingIo(home);
    expect(await status(js, { json: true })).toBe(1);
    const json = JSON.parse(js.out());
    expect(json.provisioning.state).toBe("drift");
    expect(json.provisioning.orphaned).toEqual([
      expect.objectContaining({ provider: "codex", scope: "project", dir: "~/project" }),
    ]);

    const lockBefore = readFileSync(join(home, ".cartographer-sync.lock.json"), "utf8");
    const sy = recordingIo(home);
    expect(await sync(sy), sy.err()).toBe(0);
    expect(sy.err().split(MESSAGE).length - 1).toBe(1); // said once
    expect(existsSync(projectSkill())).toBe(true); // left as it is
    expect(readFileSync(join(home, ".cartographer-sync.lock.json"), "utf8")).toBe(lockBefore);

    const dr = recordingIo(home);
    expect(await doctor(dr), dr.out()).toBe(1);
    expect(dr.out()).toContain(MESSAGE);
  });

  it("disconnect codex removes its artifacts, its project entry and its lock entry although the yaml no longer lists it", async () => {
    const codexConfig = join(project, ".codex", "config.toml");
    expect(readFileSync(codexConfig, "utf8")).toContain("[mcp_servers.cartographer]");
    const io = recordingIo(home);
    expect(await disconnect(io, { providers: ["codex"] }), io.err()).toBe(0);
    expect(existsSync(projectSkill())).toBe(false);
    expect(readLock(home).bindings.map((b) => b.provider)).toEqual(["claude"]);
    const left = existsSync(codexConfig) ? readFileSync(codexConfig, "utf8") : "";
    expect(left).not.toContain("[mcp_servers.cartographer]");
    const st = recordingIo(home);
    expect(await status(st), st.out()).toBe(0);
    expect(st.out()).not.toContain("no longer in .cartographer.yaml");
  });
});
