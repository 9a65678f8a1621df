/**
 * Shared KB builders for the suites: one test identity, git run with it (never the machine's
 * global config), a fresh KB with seed files committed, and the settings it opens with.
 */
import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { KbSettings } from "../../src/kb/core/types.js";
import { initKb } from "../../src/kb/store/init.js";

export const TEST_AUTHOR = { name: "Cartographer Test", email: "test@cartographer.invalid" };

/** Environment for git commands run by tests themselves (no global identity needed). */
export const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: TEST_AUTHOR.name,
  GIT_AUTHOR_EMAIL: TEST_AUTHOR.email,
  GIT_COMMITTER_NAME: TEST_AUTHOR.name,
  GIT_COMMITTER_EMAIL: TEST_AUTHOR.email,
};

/** Runs git in `root` as the test identity; stdout trimmed. */
export function git(root: string, args: string[]): string {
  return execFileSync("git", args, { cwd: root, env: GIT_ENV }).toString().trim();
}

/** Writes `files` (KB-relative path → text) into `root` and commits them in one commit. */
export async function commitFiles(
  root: string,
  files: Record<string, string>,
  message = "fixture",
): Promise<void> {
  const entries = Object.entries(files);
  if (entries.length === 0) return;
  for (const [path, text] of entries) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  git(root, ["add", "-A"]);
  git(root, ["commit", "-q", "-m", message]);
}

/** A new KB at `root` (initKb as the test identity) with `files` committed on top. */
export async function seedKb(
  root: string,
  files: Record<string, string> = {},
  message?: string,
): Promise<void> {
  await initKb(root, { gitAuthor: TEST_AUTHOR });
  await commitFiles(root, files, message);
}

/** The settings a test KB opens with: name `test` unless given, autocommit, test identity. */
export function testKbSettings(
  root: string,
  opts: { name?: string; allowArtifactWrite?: boolean } = {},
): KbSettings {
  return {
    name: opts.name ?? "test",
    root,
    allowArtifactWrite: opts.allowArtifactWrite ?? false,
    gitAuthor: TEST_AUTHOR,
    autocommit: true,
  };
}
