/** runGit's optional time limit: a command still running after it is killed and answers 124. */
import { describe, expect, it } from "vitest";
import { GIT_TIMED_OUT, runGit } from "../../../src/kb/git/git.js";
import { git } from "../../support/kb.js";
import { useTempDirs } from "../../support/temp-dir.js";

const tmp = useTempDirs("carto-git-timeout-");

describe("runGit timeoutMs", () => {
  it("kills a command that outlives it and says so", async () => {
    const dir = tmp();
    git(dir, ["init", "-q"]);
    // cat-file --batch waits for stdin, which is never closed here.
    const started = Date.now();
    const r = await runGit(dir, ["cat-file", "--batch"], undefined, undefined, 200);
    expect(r.code).toBe(GIT_TIMED_OUT);
    expect(r.stderr).toBe("git timed out after 200 ms");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("leaves a command that finishes in time alone", async () => {
    const dir = tmp();
    git(dir, ["init", "-q"]);
    const r = await runGit(
      dir,
      ["rev-parse", "--is-inside-work-tree"],
      undefined,
      undefined,
      5_000,
    );
    expect(r).toMatchObject({ code: 0, stdout: "true\n" });
  });
});
