/** Real git clones for the resolve tests: `git init` and `git remote add origin <url>`. */
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";

/** Makes `dir` a git repository whose origin is `remote` (none when undefined); returns dir. */
export function makeClone(dir: string, remote?: string): string {
  mkdirSync(dir, { recursive: true });
  execFileSync("git", ["init", "-q", dir]);
  if (remote !== undefined) execFileSync("git", ["-C", dir, "remote", "add", "origin", remote]);
  return dir;
}

/** One empty commit, so the clone can have a worktree. */
export function commitOnce(dir: string): void {
  execFileSync("git", [
    "-C",
    dir,
    "-c",
    "user.name=t",
    "-c",
    "user.email=t@example.org",
    "commit",
    "-q",
    "--allow-empty",
    "-m",
    "init",
  ]);
}
