import { expect } from "vitest";
import { isKbError, type KbErrorCode } from "../../src/common/errors.js";
/** Temp KBs for store tests: real git, explicit identity, cleaned up by the caller. */

import { execFileSync } from "node:child_process";
import { cp, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { KbStore, WritePlan } from "../../src/kb/core/api.js";
import type { KbSettings } from "../../src/kb/core/types.js";
import { initKb } from "../../src/kb/store/init.js";
import { openKb } from "../../src/kb/store/store.js";
import { GO_FIXTURE_KB } from "../support/fixture.js";
import { tempDir } from "../support/temp-dir.js";

export const AUTHOR = { name: "Kb Test", email: "kb-test@cartographer.invalid" };
export const FIXTURE = GO_FIXTURE_KB;
export const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

export function gitIn(root: string, args: string[], env?: Record<string, string>): string {
  return execFileSync(
    "git",
    ["-c", `user.name=${AUTHOR.name}`, "-c", `user.email=${AUTHOR.email}`, ...args],
    {
      cwd: root,
      encoding: "utf8",
      ...(env ? { env: { ...process.env, ...env } } : {}),
    },
  );
}

export function commitCount(root: string): number {
  return Number(gitIn(root, ["rev-list", "--count", "HEAD"]).trim());
}

export function settingsFor(root: string, extra: Partial<KbSettings> = {}): KbSettings {
  return {
    name: "test",
    root,
    allowArtifactWrite: true,
    gitAuthor: AUTHOR,
    autocommit: true,
    // As the CLI passes the server's: writes commit through objects written in process (path-commit.ts).
    gitEnv: process.env,
    ...extra,
  };
}

export interface TempKb {
  root: string;
  store: KbStore;
  cleanup(): Promise<void>;
}

/** The Go fixture copied to a temp dir, an asset added, committed, opened. */
export async function fixtureKb(): Promise<TempKb> {
  const { dir, cleanup } = tempDir("carto-kb-");
  const root = join(dir, "kb");
  await cp(FIXTURE, root, { recursive: true });
  await writeFile(join(root, "data/infra/rete/diagram.png"), PNG);
  gitIn(root, ["init", "-q", "-b", "main"]);
  gitIn(root, ["add", "-A"]);
  // Backdated so that history windows in tests start after the fixture.
  const date = "2024-01-01T00:00:00Z";
  gitIn(root, ["commit", "-q", "-m", "fixture"], {
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_DATE: date,
  });
  const store = await openKb(settingsFor(root));
  return { root, store, cleanup: async () => cleanup() };
}

/** A fresh KB made by initKb. */
export async function freshKb(): Promise<TempKb> {
  const { dir, cleanup } = tempDir("carto-kb-");
  const root = join(dir, "kb");
  await initKb(root, { identity: AUTHOR, title: "Test KB" });
  const store = await openKb(settingsFor(root));
  return { root, store, cleanup: async () => cleanup() };
}

/** apply + commit under the lock, as the tool layer does. */
export async function run(store: KbStore, plan: WritePlan, tool: string): Promise<string | null> {
  return store.withLock(async () => {
    const applied = await store.apply(plan);
    return store.commit(applied.paths, `${tool}: ${plan.target}`);
  });
}

/** Expects `promise` to reject with a KbError of `code` (and `text` in its message). */
export async function fails(
  promise: Promise<unknown>,
  code: KbErrorCode,
  text?: string,
): Promise<void> {
  try {
    await promise;
  } catch (e) {
    expect(isKbError(e, code), `${(e as Error).message}`).toBe(true);
    if (text) expect((e as Error).message).toContain(text);
    return;
  }
  throw new Error(`expected ${code}`);
}
