/**
 * docs/decisions.md "The Go client's lockfile at our path is moved aside": a machine migrating from
 * the Go client has Go's lockfile at our path (`{"providers": {"claude": {"applied_revision",
 * "provider", "managed": [...]}}}`, the shape of Go's internal/provisioning tests) and Go-written
 * skill files at the paths Go uses. The first writing run moves the lockfile aside (never deleted),
 * warns once, starts ours; a Go file identical to ours is adopted, a different one is kept as the
 * user's. status moves nothing. Real disk, the real Claude Code target.
 */
import { promises as fs, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ClientConfig } from "../../../src/client/config.js";
import { isGoLockfile } from "../../../src/client/provision/go-lockfile.js";
import { lockfilePath } from "../../../src/client/provision/lockfile.js";
import { printSync, statusJson } from "../../../src/client/provision/report.js";
import { provisionBindings } from "../../../src/client/provision/run.js";
import { provisionTargetFor } from "../../../src/client/provision/targets/index.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { prepared, recordingIo, skill } from "./support.js";

const newDir = useTempDirs("carto-prov-golock-");
const config: ClientConfig = {
  server_url: "http://127.0.0.1:1",
  server_name: "cartographer",
  providers: [{ name: "claude" }],
};
const CREATE = "---\nname: kb-create\n---\nCreate a KB.\n";
const OPS = "---\nname: ops\n---\nOps, version 2.\n";
const arts = () => [
  skill("a", "kb-create", { "SKILL.md": CREATE }),
  skill("a", "ops", { "SKILL.md": OPS }),
];

/** Go's v2 lockfile, as its WriteLockFile writes it (json.MarshalIndent, two spaces). */
const GO_LOCK = `${JSON.stringify(
  {
    providers: {
      claude: {
        applied_revision: "abc123",
        provider: "claude",
        managed: [
          {
            kind: "skill",
            name: "kb-create",
            path: ".claude/skills/kb-create/SKILL.md",
            content_hash: "deadbeef",
          },
          {
            kind: "skill",
            name: "ops",
            path: ".claude/skills/ops/SKILL.md",
            content_hash: "hash1",
          },
        ],
      },
    },
  },
  null,
  2,
)}`;

function goMachine(): string {
  const home = newDir();
  writeFileSync(lockfilePath(home), GO_LOCK);
  for (const [name, text] of [
    ["kb-create", CREATE], // what we write too
    ["ops", "---\nname: ops\n---\nOps, version 1.\n"], // an older version Go wrote
  ]) {
    mkdirSync(path.join(home, ".claude", "skills", name as string), { recursive: true });
    writeFileSync(path.join(home, ".claude", "skills", name as string, "SKILL.md"), text as string);
  }
  return home;
}

async function run(home: string, write: boolean, force = false) {
  const io = recordingIo(home);
  const result = await provisionBindings(io, config, config.providers, prepared(arts()), {
    write,
    force,
    targetFor: provisionTargetFor,
  });
  return { io, result, exit: write ? printSync(io, result) : 0, json: statusJson(io, result) };
}

const opsFile = (home: string) => path.join(home, ".claude", "skills", "ops", "SKILL.md");

describe("the Go client's lockfile", () => {
  it("is recognised in both of Go's forms and nothing else", () => {
    expect(isGoLockfile(JSON.parse(GO_LOCK))).toBe(true);
    // Go's v1 (single provider, sync_apply / cartographer-configure).
    expect(isGoLockfile({ applied_revision: "r", provider: "claude", managed: [] })).toBe(true);
    expect(isGoLockfile({ version: 1, bindings: [] })).toBe(false);
    expect(isGoLockfile([])).toBe(false);
    expect(isGoLockfile({ providers: [] })).toBe(false);
  });

  it("status notes it and moves nothing; the first sync moves it aside, warns once, adopts the identical Go file and keeps the different one", async () => {
    const home = goMachine();
    const status = await run(home, false);
    expect(status.json.notes.join("\n")).toContain(
      "was written by the Go implementation's client; cartographer sync moves it to ~/.cartographer-sync.lock.go.json",
    );
    expect(status.json.providers[0]?.paths).toEqual([
      expect.objectContaining({ path: "~/.claude/skills/ops/SKILL.md", action: "foreign" }),
    ]);
    expect(await fs.readFile(lockfilePath(home), "utf8")).toBe(GO_LOCK);

    const first = await run(home, true);
    expect(first.exit, first.io.err()).toBe(1); // the Go-written ops differs: kept as the user's
    const warnings = first.io.err().match(/written by the Go implementation's client/g) ?? [];
    expect(warnings).toHaveLength(1);
    expect(first.io.err()).toContain(
      "moved it to ~/.cartographer-sync.lock.go.json (kept, not read again) and started a new lockfile",
    );
    expect(first.io.err()).toContain("run the Go client's cartographer disconnect");
    expect(first.io.err()).toMatch(/ops\/SKILL\.md: not written by cartographer \(kept/);
    expect(await fs.readFile(path.join(home, ".cartographer-sync.lock.go.json"), "utf8")).toBe(
      GO_LOCK,
    );
    const ours = JSON.parse(await fs.readFile(lockfilePath(home), "utf8"));
    expect(ours.version).toBe(1);
    expect(ours.bindings[0].files.map((f: { origin: string }) => f.origin)).toEqual([
      "a/skill/kb-create", // identical bytes: adopted as ours
    ]);
    expect(await fs.readFile(opsFile(home), "utf8")).toContain("version 1");

    const second = await run(home, true);
    expect(second.io.err()).not.toContain("Go implementation");
    expect(second.exit).toBe(1);
    const forced = await run(home, true, true);
    expect(forced.exit, forced.io.err()).toBe(0);
    expect(await fs.readFile(opsFile(home), "utf8")).toBe(OPS);
  });

  it("a second Go lockfile later is moved next to the first, which is never replaced", async () => {
    const home = goMachine();
    await run(home, true);
    writeFileSync(lockfilePath(home), GO_LOCK.replace("abc123", "def456"));
    const again = await run(home, true, true);
    expect(again.exit, again.io.err()).toBe(0);
    expect(again.io.err()).toContain("moved it to ~/.cartographer-sync.lock.go.2.json");
    expect(await fs.readFile(path.join(home, ".cartographer-sync.lock.go.json"), "utf8")).toBe(
      GO_LOCK,
    );
    expect(
      await fs.readFile(path.join(home, ".cartographer-sync.lock.go.2.json"), "utf8"),
    ).toContain("def456");
    expect(JSON.parse(await fs.readFile(lockfilePath(home), "utf8")).version).toBe(1);
  });
});
