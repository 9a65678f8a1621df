/**
 * A held artifact is "not materialized this time" — whatever of it
 * is already installed (files, its MCP entry, its part of a shared hooks registration) stays as
 * it is, with its lock records, and status/sync say so with the fix. Only what the KB no longer
 * offers (or the server now skips) is pruned, and so is what a withdrawn consent brought:
 * `cartographer trust <kb> --revoke`, `cartographer revoke <kb> <name>`.
 *
 * Real disk, the real Claude Code target, the real trust gate (evaluateTrust) over manifests
 * built with the real content hash; the yaml edited by the real `trust` command.
 */
import { promises as fs, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { trust } from "../../../src/client/commands/trust.js";
import { type ClientConfig, loadConfig, type ProviderBinding } from "../../../src/client/config.js";
import { lockfilePath, sha256Hex } from "../../../src/client/provision/lockfile.js";
import type { Prepared } from "../../../src/client/provision/provision.js";
import { printSync, statusJson } from "../../../src/client/provision/report.js";
import { provisionBindings } from "../../../src/client/provision/run.js";
import { provisionTargetFor } from "../../../src/client/provision/targets/index.js";
import { evaluateTrust } from "../../../src/client/provision/trust.js";
import type { Artifact } from "../../../src/client/provision/types.js";
import { artifactContentHash } from "../../../src/common/provisioning/artifact-sign.js";
import { useTempDirs } from "../../support/temp-dir.js";
import { recordingIo, skill, snapshot } from "./support.js";

const newDir = useTempDirs("carto-prov-held-");
const claude: ProviderBinding = { name: "claude" };
const base: ClientConfig = {
  server_url: "http://127.0.0.1:1",
  server_name: "cartographer",
  providers: [claude],
};

function artifact(kb: string, kind: Artifact["kind"], name: string, files: Artifact["files"]) {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : 1));
  return {
    kb,
    kind,
    name,
    source: `kb:${kb}`,
    version: "1",
    contentHash: artifactContentHash(
      sorted.map((f) => ({ path: f.path, executable: f.executable, content: f.bytes })),
    ),
    files: sorted,
    signature: null,
  } satisfies Artifact;
}

const file = (p: string, text: string, executable = false) => ({
  path: p,
  executable,
  bytes: Buffer.from(text),
});
const ops = (body = "Ops.") => skill("a", "ops", { "SKILL.md": `---\nname: ops\n---\n${body}\n` });
const fmtHook = (flag = "--check") =>
  artifact("a", "hook", "fmt", [
    file("hook.json", '{"event":"PostToolUse","matcher":"Edit","command":"./fmt.sh"}'),
    file("fmt.sh", `#!/bin/sh\nexec prettier ${flag}\n`, true),
  ]);
const tools = (url = "https://tools.example/mcp") =>
  artifact("a", "mcp", "tools", [file("tools.json", JSON.stringify({ type: "http", url }))]);

/** The manifests of `kbs` with `arts`, through the real trust gate. */
function gate(config: ClientConfig, arts: Artifact[], autoTrust = false, kbs = ["a"]): Prepared {
  const manifests = kbs.map((kb) => {
    const mine = arts.filter((a) => a.kb === kb);
    return {
      kb,
      revision: sha256Hex(mine.map((a) => a.contentHash).join(",")),
      signingKey: null,
      artifacts: mine,
      skipped: [],
    };
  });
  const decision = evaluateTrust(manifests, config, {
    autoTrust,
    env: {},
    bundledSkills: new Map(),
  });
  return { serverKbs: kbs, manifests: new Map(manifests.map((m) => [m.kb, m])), decision };
}

async function run(home: string, config: ClientConfig, prep: Prepared, write = true) {
  const io = recordingIo(home);
  const result = await provisionBindings(io, config, config.providers, prep, {
    write,
    force: false,
    targetFor: provisionTargetFor,
  });
  return { io, result, exit: write ? printSync(io, result) : 0, json: statusJson(io, result) };
}

const readLockText = (home: string) => fs.readFile(lockfilePath(home), "utf8");
/** Every file and folder but the lockfile (which records each KB's new revision, held or not). */
async function installed(home: string): Promise<Map<string, string>> {
  const all = await snapshot(home);
  all.delete(lockfilePath(home));
  return all;
}
const skillFile = (home: string) => path.join(home, ".claude", "skills", "ops", "SKILL.md");
const claudeJson = async (home: string) =>
  JSON.parse(await fs.readFile(path.join(home, ".claude.json"), "utf8")) as {
    mcpServers?: Record<string, { url?: string }>;
  };

describe("held artifacts keep what is installed", () => {
  it("written under --auto-trust, then held by a plain sync: files, the hooks registration and the lock records stay; a new KB version is not written; removed from the KB → pruned", async () => {
    const home = newDir();
    const first = await run(home, base, gate(base, [ops(), fmtHook()], true));
    expect(first.exit, first.io.err()).toBe(0);
    const settings = path.join(home, ".claude", "settings.json");
    expect(await fs.readFile(settings, "utf8")).toContain("hooks/cartographer/fmt/fmt.sh");
    const before = await installed(home);
    const lockBefore = await readLockText(home);

    // The bootstrap hook's plain sync: no consent this time.
    const plain = await run(home, base, gate(base, [ops(), fmtHook()]));
    expect(plain.exit, plain.io.err()).toBe(0);
    expect(plain.io.err()).toMatch(
      /held skill "ops" of KB a: unsigned; run cartographer trust a \(or --auto-trust\); the copy installed earlier stays as it is/,
    );
    expect(plain.io.err()).toMatch(/held hook "fmt" of KB a: .*stays as it is/);
    expect(plain.io.out()).toMatch(/claude \(user\) artifacts: .*held as installed/);
    expect(await installed(home)).toEqual(before); // not rewritten, not pruned: mtimes equal
    expect(await readLockText(home)).toBe(lockBefore);

    // status: held is not drift; the JSON says the copy is kept.
    const status = await run(home, base, gate(base, [ops(), fmtHook()]), false);
    expect(status.json.state).toBe("in-sync");
    expect(status.json.held).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: "ops", cause: "unsigned", kept: true }),
        expect.objectContaining({ name: "fmt", cause: "unsigned", kept: true }),
      ]),
    );

    // A new version in the KB is not materialized without consent either.
    await run(home, base, gate(base, [ops("Ops v2."), fmtHook("--write")]));
    expect(await installed(home)).toEqual(before);

    // The KB no longer has them: that is a removal, held or not.
    const gone = await run(home, base, gate(base, []));
    expect(gone.exit, gone.io.err()).toBe(0);
    await expect(fs.stat(skillFile(home))).rejects.toThrow();
    expect(await fs.readFile(settings, "utf8")).not.toContain("cartographer/fmt");
    const lock = JSON.parse(await readLockText(home).catch(() => '{"bindings":[]}'));
    expect(JSON.stringify(lock)).not.toContain("a/skill/ops");
  });

  it("trust <kb> --revoke: the next sync removes the KB's unsigned artifacts (status says why); trusting again writes them back", async () => {
    const home = newDir();
    const yaml = path.join(home, ".cartographer.yaml");
    writeFileSync(
      yaml,
      "server_url: http://127.0.0.1:1\ntrust: [a]\nproviders:\n  - name: claude\n",
    );
    const load = async () => (await loadConfig(yaml)).config;
    const written = await run(home, await load(), gate(await load(), [ops()]));
    expect(written.exit, written.io.err()).toBe(0);
    expect(JSON.parse(await readLockText(home)).bindings[0].trusted).toEqual(["a"]);

    const io = recordingIo(home);
    expect(await trust(io, { kb: "a", revoke: true, config: yaml })).toBe(0);
    expect(io.out()).toContain("the next cartographer sync removes its unsigned artifacts");
    const revoked = await load();
    expect(revoked.trust ?? []).toEqual([]);

    const status = await run(home, revoked, gate(revoked, [ops()]), false);
    expect(status.json.state).toBe("drift");
    expect(status.json.providers[0]?.paths).toEqual([
      expect.objectContaining({
        path: "~/.claude/skills/ops/SKILL.md",
        action: "prune",
        reason: "to be removed: trust in KB a was revoked",
      }),
    ]);
    const sync = await run(home, revoked, gate(revoked, [ops()]));
    expect(sync.exit, sync.io.err()).toBe(0);
    await expect(fs.stat(skillFile(home))).rejects.toThrow();
    expect(await readLockText(home)).not.toContain("a/skill/ops");

    expect(await trust(recordingIo(home), { kb: "a", config: yaml })).toBe(0);
    const again = await run(home, await load(), gate(await load(), [ops()]));
    expect(again.exit, again.io.err()).toBe(0);
    expect(await fs.readFile(skillFile(home), "utf8")).toContain("Ops.");
  });

  it("MCP: a descriptor changed since approval loses its entry until approved again (as in Go, needs_approval); a revoked approval removes it; one the server no longer offers is removed", async () => {
    const home = newDir();
    const approve = (a: Artifact): ClientConfig => ({
      ...base,
      trust: ["a"],
      approvals: [{ kb: "a", name: "tools", content_hash: a.contentHash }],
    });
    const v1 = tools();
    const approved = approve(v1);
    expect((await run(home, approved, gate(approved, [v1]))).exit).toBe(0);
    const entry = "cartographer-a-tools";
    expect((await claudeJson(home)).mcpServers?.[entry]?.url).toBe("https://tools.example/mcp");

    const v2 = tools("https://elsewhere.example/mcp");
    const pending = await run(home, approved, gate(approved, [v2]), false);
    expect(pending.json.providers[0]?.paths).toEqual([
      expect.objectContaining({
        section: `mcp:${entry}`,
        reason: "to be removed: it changed since its approval (needs_approval)",
      }),
    ]);
    const changed = await run(home, approved, gate(approved, [v2]));
    expect(changed.exit, changed.io.err()).toBe(0);
    expect(changed.io.err()).toMatch(
      /held mcp "tools" of KB a: changed since approval, its entry is removed until approved again; review and approve: cartographer approve a tools/,
    );
    expect(changed.io.out()).toMatch(
      /^needs_approval: mcp "tools" of KB a: cartographer approve a tools$/m,
    );
    expect((await claudeJson(home)).mcpServers?.[entry]).toBeUndefined();
    expect(await readLockText(home)).not.toContain("a/mcp/tools");

    // Approved again: the new descriptor is written.
    const approvedV2 = approve(v2);
    expect((await run(home, approvedV2, gate(approvedV2, [v2]))).exit).toBe(0);
    expect((await claudeJson(home)).mcpServers?.[entry]?.url).toBe("https://elsewhere.example/mcp");

    const unapproved: ClientConfig = { ...approved, approvals: [] };
    const status = await run(home, unapproved, gate(unapproved, [v2]), false);
    expect(status.json.providers[0]?.paths).toEqual([
      expect.objectContaining({
        section: `mcp:${entry}`,
        reason: "to be removed: its approval was revoked",
      }),
    ]);
    expect((await run(home, unapproved, gate(unapproved, [v2]))).exit).toBe(0);
    expect((await claudeJson(home)).mcpServers?.[entry]).toBeUndefined();

    // Approved again, then the server skips it (taken out of mcp_allowlist): removed.
    const reapproved = approve(v2);
    expect((await run(home, reapproved, gate(reapproved, [v2]))).exit).toBe(0);
    expect((await claudeJson(home)).mcpServers?.[entry]?.url).toBe("https://elsewhere.example/mcp");
    expect((await run(home, reapproved, gate(reapproved, []))).exit).toBe(0);
    expect((await claudeJson(home)).mcpServers?.[entry]).toBeUndefined();
    expect((await claudeJson(home)).mcpServers?.cartographer).toBeUndefined();
  });

  it("a collision (a second bound KB brings a different 'ops') holds both and keeps the installed copy", async () => {
    const home = newDir();
    const config: ClientConfig = { ...base, trust: ["a", "b"] };
    const kbs = ["a", "b"];
    expect((await run(home, config, gate(config, [ops()], false, kbs))).exit).toBe(0);
    const before = await installed(home);
    const other = skill("b", "ops", { "SKILL.md": "---\nname: ops\n---\nOther.\n" });
    const clash = await run(home, config, gate(config, [ops(), other], false, kbs));
    expect(clash.exit, clash.io.err()).toBe(0);
    expect(clash.io.err()).toMatch(
      /held skill "ops" of KB a: KBs a, b each have a skill "ops" with different content; .*; the copy installed earlier stays as it is/,
    );
    expect(await installed(home)).toEqual(before);
  });
});
