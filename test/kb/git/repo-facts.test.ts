/**
 * The repository facts a commit in process relies on (repo-facts.ts): which configuration sends
 * commits through git commit, how `git config --list` is read, and that the facts are read
 * again — only — when a configuration file changes, including a global one that did not exist.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfigList, RepoFactsReader, unusualConfig } from "../../../src/kb/git/repo-facts.js";
import { git } from "../../support/kb.js";
import { useTempDirs } from "../../support/temp-dir.js";

const tmp = useTempDirs("carto-repo-facts-");

describe("repository facts", () => {
  it("names the configuration git commit must honour itself", () => {
    const unusual = (entries: Record<string, string>) =>
      unusualConfig(new Map(Object.entries(entries)));
    expect(unusual({})).toBeNull();
    expect(
      unusual({ "extensions.objectformat": "sha1", "extensions.worktreeconfig": "true" }),
    ).toBeNull();
    expect(
      unusual({
        "commit.gpgsign": "false",
        "core.autocrlf": "false",
        "i18n.commitencoding": "UTF-8",
      }),
    ).toBeNull();
    expect(unusual({ "core.sharedrepository": "umask", "core.filemode": "true" })).toBeNull();
    const cases: Array<[Record<string, string>, string]> = [
      [{ "extensions.objectformat": "sha256" }, "extensions.objectformat"],
      [{ "extensions.partialclone": "origin" }, "extensions.partialclone"],
      [{ "core.repositoryformatversion": "2" }, "core.repositoryFormatVersion"],
      [{ "commit.gpgsign": "yes" }, "commit.gpgSign"],
      [{ "core.autocrlf": "input" }, "core.autocrlf"],
      [{ "core.attributesfile": "~/.attributes" }, "core.attributesFile"],
      [{ "i18n.commitencoding": "ISO-8859-1" }, "i18n.commitEncoding"],
      [{ "commit.cleanup": "verbatim" }, "commit.cleanup"],
      [{ "core.sharedrepository": "group" }, "core.sharedRepository"],
      [{ "core.filemode": "false" }, "core.fileMode"],
      [{ "core.ignorecase": "true" }, "core.ignoreCase"],
      [{ "core.worktree": "/elsewhere" }, "core.bare/core.worktree"],
    ];
    for (const [entries, why] of cases) expect(unusual(entries)).toBe(why);
  });

  it("reads git config --list -z --show-origin: last value wins, a bare key is true", () => {
    const out =
      "file:/etc/gitconfig\0a.b\n1\0file:.git/config\0A.B\n2\0file:.git/config\0c.flag\0command line:\0x.y\nz\0";
    const { values, origins } = parseConfigList(out, "/repo");
    expect(Object.fromEntries(values)).toEqual({ "a.b": "2", "c.flag": "true", "x.y": "z" });
    expect(origins).toEqual(["/etc/gitconfig", "/repo/.git/config"]);
  });

  it("reads the facts again only when a configuration file changed or appeared", async () => {
    const root = tmp();
    const home = tmp();
    git(root, ["init", "-q"]);
    const reader = new RepoFactsReader(root, {
      ...process.env,
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
    });
    const first = await reader.get();
    expect(first.unusual).toBeNull();
    expect(first.objectsDir).toBe(join(root, ".git", "objects"));
    expect(first.watched).toEqual(
      expect.arrayContaining([
        join(root, ".git", "MERGE_HEAD"),
        join(root, ".git", "hooks", "post-commit"),
      ]),
    );
    expect(await reader.get()).toBe(first);
    git(root, ["config", "committer.name", "Someone Else"]);
    const second = await reader.get();
    expect(second).not.toBe(first);
    expect(second.committer).toEqual({ name: "Someone Else" });
    expect(await reader.get()).toBe(second);
    // A global file that did not exist when the facts were read.
    mkdirSync(join(home, ".config", "git"), { recursive: true });
    writeFileSync(join(home, ".config", "git", "config"), "[commit]\n\tgpgSign = true\n");
    expect((await reader.get()).unusual).toBe("commit.gpgSign");
  });
});
