/**
 * Remote KB config (docs/sync.md "Configuration"): kbs[].remote and CARTOGRAPHER_KB_REMOTES clone
 * into <data>/<name>; git.sync / in_window / out_debounce / poll_seconds / token_dir / ssh_key
 * resolve with env over YAML; a bad duration names its key; `kb clone` clones a real remote.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cloneKb, syncSettingsFor } from "../../../src/cli/commands/kb-clone.js";
import { resolveServerConfig } from "../../../src/cli/config/resolve.js";
import { parseDurationMs, remoteKbName } from "../../../src/cli/config/sync-keys.js";
import { bareRemote, type Remote } from "../../support/sync-remote.js";
import { useTempDirs } from "../../support/temp-dir.js";

const newDir = useTempDirs("carto-synccfg-");

function configFile(yaml: string): { dir: string; path: string } {
  const dir = newDir();
  const path = join(dir, "c.yaml");
  writeFileSync(path, yaml);
  return { dir, path };
}

let remote: Remote | undefined;
afterEach(async () => {
  await remote?.cleanup();
  remote = undefined;
});

describe("sync config", () => {
  it("names a remote KB after the URL's last segment without .git", () => {
    expect(remoteKbName("https://gitea.example.com/user/wiki-kb.git")).toBe("wiki-kb");
    expect(remoteKbName("git@github.com:org/Team_Notes.git")).toBe("Team_Notes"); // kept as written, as Go does
    expect(remoteKbName("/srv/git/ops.git/")).toBe("ops");
  });

  it("parses seconds and Go durations; a bad one names its key", () => {
    expect(parseDurationMs(30, "git.in_window")).toBe(30_000);
    expect(parseDurationMs("500ms", "k")).toBe(500);
    expect(parseDurationMs("2m", "k")).toBe(120_000);
    expect(parseDurationMs("0", "k")).toBe(0);
    expect(() => parseDurationMs("soon", "git.out_debounce")).toThrow(/git\.out_debounce: 'soon'/);
  });

  it("defaults: sync on, in_window 30 s, out_debounce 3 s, poll 60 s", () => {
    const { dir, path } = configFile("data: .\n");
    const c = resolveServerConfig({ config: path }, {}, dir);
    expect(c.sync).toMatchObject({
      enabled: true,
      inWindowMs: 30_000,
      outDebounceMs: 3_000,
      pollMs: 60_000,
    });
  });

  it("kbs[].remote and CARTOGRAPHER_KB_REMOTES mount <data>/<name>; env wins over YAML", () => {
    const { dir, path } = configFile(
      [
        "data: ./d",
        "git: {sync: true, in_window: 5s, out_debounce: 0, poll_seconds: 2, token_dir: ./tok, ssh_key: ./id, known_hosts: ./kh}",
        "kbs:",
        "  - remote: https://example.com/team/wiki-kb.git",
        "    name: wiki",
        "    ssh_key: ./wiki_id",
        "    committer_name: Bot",
        "    committer_email: bot@example.com",
      ].join("\n"),
    );
    const env = {
      CARTOGRAPHER_KB_REMOTES: "/srv/git/ops.git",
      CARTOGRAPHER_SYNC_IN_WINDOW: "1",
      CARTOGRAPHER_GIT_SYNC: "false",
    };
    const c = resolveServerConfig({ config: path }, env, dir);
    expect(c.warnings.join("\n")).not.toMatch(/not supported/);
    const byName = Object.fromEntries(c.kbs.map((k) => [k.name, k]));
    expect(byName.wiki).toMatchObject({
      root: join(dir, "d", "wiki"),
      remote: "https://example.com/team/wiki-kb.git",
      sshKey: join(dir, "wiki_id"),
      committer: { name: "Bot", email: "bot@example.com" },
    });
    expect(byName.ops).toMatchObject({ root: join(dir, "d", "ops"), remote: "/srv/git/ops.git" });
    expect(c.sync).toMatchObject({
      enabled: false,
      inWindowMs: 1_000,
      outDebounceMs: 0,
      pollMs: 2_000,
      tokenDir: join(dir, "tok"),
      sshKey: join(dir, "id"),
      knownHosts: join(dir, "kh"),
    });
    const wiki = syncSettingsFor(c, byName.wiki as never, {});
    expect(wiki.sshKey).toBe(join(dir, "wiki_id")); // the KB's key wins over git.ssh_key
    expect(wiki.knownHosts).toBe(join(dir, "kh"));
  });

  it("git.network_timeout: 30 s by default, YAML or CARTOGRAPHER_GIT_NETWORK_TIMEOUT; a bad one names its key", () => {
    const { dir, path } = configFile("data: .\ngit: {network_timeout: 5s}\n");
    expect(resolveServerConfig({ config: path }, {}, dir).sync.networkTimeoutMs).toBe(5_000);
    expect(
      resolveServerConfig({ config: path }, { CARTOGRAPHER_GIT_NETWORK_TIMEOUT: "2" }, dir).sync
        .networkTimeoutMs,
    ).toBe(2_000);
    const plain = configFile("data: .\n");
    expect(resolveServerConfig({ config: plain.path }, {}, plain.dir).sync.networkTimeoutMs).toBe(
      30_000,
    );
    const bad = configFile("data: .\ngit: {network_timeout: soon}\n");
    expect(() => resolveServerConfig({ config: bad.path }, {}, bad.dir)).toThrow(
      /git\.network_timeout: 'soon'/,
    );
  });

  it("a remote-only entry without a data directory is refused naming the key", () => {
    const { dir, path } = configFile("kbs:\n  - remote: https://example.com/a/b.git\n");
    expect(() => resolveServerConfig({ config: path }, {}, dir)).toThrow(
      /kbs\.0\.remote: .*needs a data directory/,
    );
  });

  it("token_dir/<kb>.token is used only when it exists", () => {
    const { dir } = configFile("");
    writeFileSync(join(dir, "wiki.token"), "secret\n");
    const sync = {
      enabled: true,
      inWindowMs: 0,
      outDebounceMs: 0,
      pollMs: 0,
      networkTimeoutMs: 30_000,
      tokenDir: dir,
    };
    expect(syncSettingsFor({ sync }, { name: "wiki" }, {}).tokenFile).toBe(join(dir, "wiki.token"));
    expect(syncSettingsFor({ sync }, { name: "other" }, {}).tokenFile).toBeUndefined();
  });

  it("cloneKb clones a real remote KB; a non-KB remote is refused", async () => {
    remote = await bareRemote();
    const dest = join(remote.dir, "data", "cloned");
    await cloneKb(remote.bare, dest, { env: process.env });
    expect(existsSync(join(dest, "data", "index.md"))).toBe(true);
    await expect(
      cloneKb(join(remote.dir, "nope.git"), join(remote.dir, "data", "x"), { env: process.env }),
    ).rejects.toThrow(/git clone failed/);
  });
});
