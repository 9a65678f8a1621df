/**
 * The commit object written in process (commit-object.ts) is byte for byte the one `git
 * commit-tree` writes for the same tree, parent, identities, date and message; git's default
 * date is this process's time zone; identities and messages git would rewrite are told apart.
 */
import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import type { GitIdentity } from "../../../src/kb/core/types.js";
import {
  commitBody,
  gitDate,
  isCleanMessage,
  isPlainIdentity,
} from "../../../src/kb/git/commit-object.js";
import { objectId } from "../../../src/kb/git/objects.js";
import { git } from "../../support/kb.js";
import { useTempDirs } from "../../support/temp-dir.js";

const tmp = useTempDirs("carto-commit-object-");
const zone = process.env.TZ;
afterEach(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

describe("commit objects", () => {
  it("are git commit-tree's bytes", () => {
    const root = tmp();
    git(root, ["init", "-q"]);
    git(root, ["commit", "-q", "--allow-empty", "-m", "parent"]);
    const parent = git(root, ["rev-parse", "HEAD"]);
    const tree = git(root, ["rev-parse", "HEAD^{tree}"]);
    const kb = { name: "Kb Test", email: "kb-test@cartographer.invalid" };
    const zoe = { name: "Zoë Ångström-日本", email: "zoe+kb@example.org" };
    const pairs: Array<[GitIdentity, GitIdentity]> = [
      [kb, zoe],
      [zoe, kb],
    ];
    for (const [author, committer] of pairs)
      for (const message of ["one line", "subject\n\nbody line\nand another"]) {
        const made = execFileSync("git", ["commit-tree", tree, "-p", parent, "-m", message], {
          cwd: root,
          env: {
            ...process.env,
            GIT_AUTHOR_NAME: author.name,
            GIT_AUTHOR_EMAIL: author.email,
            GIT_COMMITTER_NAME: committer.name,
            GIT_COMMITTER_EMAIL: committer.email,
            GIT_AUTHOR_DATE: "@1700000000 +0130",
            GIT_COMMITTER_DATE: "@1700000000 +0130",
          },
        })
          .toString()
          .trim();
        const ours = commitBody({
          tree,
          parent,
          author,
          committer,
          date: "1700000000 +0130",
          message,
        });
        expect(objectId("commit", ours)).toBe(made);
      }
  });

  it("dates in the process's time zone, as date(1) and git print it", () => {
    for (const tz of ["UTC", "Asia/Kolkata", "America/St_Johns", "Pacific/Chatham"]) {
      process.env.TZ = tz;
      const at = new Date(Date.UTC(2026, 6, 1, 12, 0, 0));
      const seconds = at.getTime() / 1000;
      const expected = execFileSync("date", ["-d", `@${seconds}`, "+%s %z"], {
        env: { ...process.env, TZ: tz },
      })
        .toString()
        .trim();
      expect(gitDate(at)).toBe(expected);
    }
  });

  it("tells identities and messages git would rewrite", () => {
    const ok = { name: "Ada Lovelace", email: "ada@example.org" };
    expect(isPlainIdentity(ok)).toBe(true);
    for (const bad of [
      { ...ok, name: "" },
      { ...ok, name: " Ada" },
      { ...ok, name: "Ada." },
      { ...ok, name: "A<da>" },
      { ...ok, email: "ada@example.org\n" },
      { ...ok, email: "'ada@example.org'" },
    ])
      expect(isPlainIdentity(bad), JSON.stringify(bad)).toBe(false);
    expect(isCleanMessage("subject\n\nbody")).toBe(true);
    for (const bad of ["", "\nsubject", "subject\n", "a \nb", "a\n\n\nb", "a\r\nb", "a\0b"])
      expect(isCleanMessage(bad), JSON.stringify(bad)).toBe(false);
  });
});
