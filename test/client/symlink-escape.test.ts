/**
 * The one symlink rule of the client's writers (src/client/symlink-escape.ts), on a real disk:
 * a path reached through a link that leaves every anchor is named; a link that stays inside
 * one, a path under no anchor, and an anchor that is itself a link are fine.
 */
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { symlinkEscape } from "../../src/client/symlink-escape.js";
import { useTempDirs } from "../support/temp-dir.js";

const newDir = useTempDirs("carto-symlink-escape-");

describe("symlinkEscape", () => {
  it("names the first link on the way that leads out of every anchor, for paths not yet there too", () => {
    const home = newDir();
    const outside = newDir();
    symlinkSync(outside, join(home, ".agents"));
    const why = symlinkEscape(join(home, ".agents", "skills", "x", "SKILL.md"), [home]);
    expect(why).toBe(`${join(home, ".agents")} is a symlink to ${outside}, outside ${home}`);
    // Another anchor the target lies in makes it fine (a project linked into $HOME and back).
    expect(symlinkEscape(join(home, ".agents", "skills"), [home, outside])).toBeUndefined();
  });

  it("a link that stays inside, a path under no anchor, and a linked anchor pass", () => {
    const home = newDir();
    mkdirSync(join(home, "dotfiles", "claude"), { recursive: true });
    symlinkSync(join(home, "dotfiles", "claude"), join(home, ".claude"));
    expect(symlinkEscape(join(home, ".claude", "CLAUDE.md"), [home])).toBeUndefined();
    expect(symlinkEscape("/etc/codex/config.toml", [home])).toBeUndefined();
    const alias = join(newDir(), "home-link");
    symlinkSync(home, alias);
    expect(symlinkEscape(join(alias, ".claude", "CLAUDE.md"), [alias])).toBeUndefined();
    expect(symlinkEscape(join(alias, "new", "file"), [alias])).toBeUndefined();
  });

  it("a file that is itself a link out of the anchor is caught", () => {
    const home = newDir();
    const outside = newDir();
    symlinkSync(join(outside, "claude.json"), join(home, ".claude.json"));
    // A dangling link: the deepest existing path is the link, which resolves nowhere inside.
    expect(symlinkEscape(join(home, ".claude.json"), [home])).toMatch(/outside/);
  });
});
