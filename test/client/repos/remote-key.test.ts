import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { matchKey, normaliseRemote } from "../../../src/client/repos/remote-key.js";

describe("normaliseRemote: every spelling of a remote is one key", () => {
  it.each([
    ["git@github.com:owner/name.git", "github.com/owner/name"],
    ["git@github.com:owner/name", "github.com/owner/name"],
    ["github.com:owner/name.git", "github.com/owner/name"],
    ["https://github.com/owner/name", "github.com/owner/name"],
    ["https://github.com/owner/name.git", "github.com/owner/name"],
    ["https://github.com/owner/name/", "github.com/owner/name"],
    ["https://user:secret@GitHub.COM/owner/name.git", "github.com/owner/name"],
    ["http://github.com/owner/name", "github.com/owner/name"],
    ["ssh://git@github.com/owner/name.git", "github.com/owner/name"],
    ["ssh://git@github.com:2222/owner/name.git", "github.com/owner/name"],
    ["git+ssh://git@github.com/owner/name", "github.com/owner/name"],
    ["git://github.com/owner/name.git", "github.com/owner/name"],
    ["git@gitlab.com:group/sub/name.git", "gitlab.com/group/sub/name"],
    ["  git@github.com:owner/name.git\n", "github.com/owner/name"],
  ])("%s → %s", (raw, key) => {
    expect(normaliseRemote(raw)).toBe(key);
  });

  it.each([
    "",
    "/srv/git/name.git",
    "./relative/repo",
    "../up/repo",
    "file:///srv/git/name.git",
    "C:\\repos\\name",
    "C:repos/name",
    "https://github.com/",
    "git@github.com:owner/../name",
    "git@github.com:owner/na\u202eme",
    "not a url",
  ])("%j has no key (a local path or not a remote)", (raw) => {
    expect(normaliseRemote(raw)).toBeUndefined();
  });

  const segment = fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,12}$/);
  it("property: scp, https (with/without .git, a user), ssh:// (with a port) agree", () => {
    fc.assert(
      fc.property(segment, segment, segment, fc.boolean(), (host, owner, name, upper) => {
        const h = `${host}.example`;
        const key = `${h}/${owner}/${name}`;
        const shown = upper ? h.toUpperCase() : h;
        for (const raw of [
          `git@${shown}:${owner}/${name}.git`,
          `https://${shown}/${owner}/${name}`,
          `https://bot@${shown}/${owner}/${name}.git`,
          `ssh://git@${shown}:22/${owner}/${name}.git`,
        ]) {
          expect(normaliseRemote(raw)).toBe(key);
        }
      }),
    );
  });
});

describe("matchKey: a reference among the known keys", () => {
  const keys = ["github.com/acme/tool", "github.com/acme/site", "gitlab.com/other/tool"];

  it("a unique short name, an owner/name and a full key are found", () => {
    expect(matchKey(keys, "site")).toEqual({ kind: "found", key: "github.com/acme/site" });
    expect(matchKey(keys, "acme/tool")).toEqual({ kind: "found", key: "github.com/acme/tool" });
    expect(matchKey(keys, "gitlab.com/other/tool")).toEqual({
      kind: "found",
      key: "gitlab.com/other/tool",
    });
  });

  it("case does not matter, a remote URL is normalised first", () => {
    expect(matchKey(keys, "ACME/Site")).toEqual({ kind: "found", key: "github.com/acme/site" });
    expect(matchKey(keys, "git@github.com:acme/tool.git")).toEqual({
      kind: "found",
      key: "github.com/acme/tool",
    });
  });

  it("a short name of two distinct remotes is ambiguous and names both", () => {
    expect(matchKey(keys, "tool")).toEqual({
      kind: "ambiguous",
      keys: ["github.com/acme/tool", "gitlab.com/other/tool"],
    });
  });

  it("an exact key wins over a longer key it is a suffix of", () => {
    expect(matchKey(["a.org/x/y", "b.org/a.org/x/y"], "a.org/x/y")).toEqual({
      kind: "found",
      key: "a.org/x/y",
    });
  });

  it("a partial segment never matches, nothing is none", () => {
    expect(matchKey(keys, "ool")).toEqual({ kind: "none" });
    expect(matchKey(keys, "")).toEqual({ kind: "none" });
    expect(matchKey([], "tool")).toEqual({ kind: "none" });
  });
});
