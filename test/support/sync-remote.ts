/**
 * Real git remotes for sync tests: a bare repository seeded with a fresh KB, and mounted clones
 * of it (each with its own index and sync), driven through the real call pipeline.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach } from "vitest";
import type { KbSettings, SyncSettings } from "../../src/kb/core/types.js";
import { initKb } from "../../src/kb/store/init.js";
import { silentLogger } from "../../src/logger.js";
import type { KbSurface } from "../../src/mcp/kb-surface.js";
import { surfaceForMount } from "../../src/mcp/surface-for-mount.js";
import { closeMount, type MountedKb, mountKb } from "../../src/runtime/mount.js";
import { callSurface } from "./call-tool.js";
import { TEST_AUTHOR } from "./mcp-kit.js";
import { tempDir } from "./temp-dir.js";

export const gitSync = (cwd: string, ...args: string[]): string =>
  execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

export interface Remote {
  dir: string;
  bare: string;
  cleanup: () => Promise<void>;
}

/** A temp dir with `remote.git`, a bare repository holding one fresh KB on `main`. */
export async function bareRemote(): Promise<Remote> {
  const { dir, cleanup } = tempDir("carto-sync-");
  const seed = join(dir, "seed");
  const bare = join(dir, "remote.git");
  gitSync(dir, "init", "-q", "--bare", "-b", "main", bare);
  await initKb(seed, { gitAuthor: TEST_AUTHOR });
  gitSync(seed, "branch", "-M", "main");
  gitSync(seed, "remote", "add", "origin", bare);
  gitSync(seed, "push", "-q", "origin", "main");
  return { dir, bare, cleanup: async () => cleanup() };
}

export function syncSettings(over: Partial<SyncSettings> = {}): SyncSettings {
  return { enabled: true, inWindowMs: 0, outDebounceMs: 0, pollMs: 0, env: process.env, ...over };
}

export interface Instance {
  root: string;
  mount: MountedKb;
  surface: KbSurface;
  call: (name: string, args: Record<string, unknown>) => Promise<CallToolResult>;
  close: () => Promise<void>;
}

/** Clones the remote into `<dir>/<name>` and mounts it with `sync`. */
export async function instance(
  remote: Remote,
  name: string,
  sync: Partial<SyncSettings> = {},
): Promise<Instance> {
  const root = join(remote.dir, name);
  gitSync(remote.dir, "clone", "-q", remote.bare, root);
  const settings: KbSettings = {
    name: "kb",
    root,
    allowArtifactWrite: false,
    gitAuthor: { name: `Author ${name}`, email: `${name}@test.invalid` },
    autocommit: true,
    sync: syncSettings(sync),
  };
  const mount = await mountKb(settings, { logger: silentLogger });
  const surface = surfaceForMount(mount, { logger: silentLogger });
  return {
    root,
    mount,
    surface,
    call: (tool, args) => callSurface(surface, tool, args),
    close: () => closeMount(mount),
  };
}

export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first && first.type === "text" ? first.text : "";
}

export function jsonOf(result: CallToolResult): Record<string, unknown> {
  return JSON.parse(textOf(result)) as Record<string, unknown>;
}

export const write = (i: Instance, id: string, body = `${id}\n`) =>
  i.call("concept_write", { id, frontmatter: { type: "note", title: id }, body });

/** Commit subjects on the remote's main, newest first. */
export const remoteLog = (remote: Remote): string[] =>
  gitSync(remote.bare, "log", "--format=%s", "main").trim().split("\n");

/**
 * `start(name, sync?)` for a suite: an instance on the test's current remote, closed after the
 * test, after which the remote itself is removed. `currentRemote` reads the suite's variable.
 */
export function useInstances(
  currentRemote: () => Remote | undefined,
): (name: string, sync?: Partial<SyncSettings>) => Promise<Instance> {
  const open: Instance[] = [];
  afterEach(async () => {
    for (const i of open.splice(0)) await i.close();
    await currentRemote()?.cleanup();
  });
  return async (name, sync = {}) => {
    const remote = currentRemote();
    if (!remote) throw new Error("make the test's bare remote before starting an instance");
    const i = await instance(remote, name, sync);
    open.push(i);
    return i;
  };
}

/** One concept both instances change: its text at first, then on b, then on a. */
export interface ConflictingEdit {
  id: string;
  base: string;
  onB: string;
  onA: string;
}

/**
 * Instances a and b over the remote `start` uses, b's push held back a minute. Each edit: a
 * writes `base` (pushed), b writes `onB` (kept unpushed), a writes `onA` (pushed); then b writes
 * `shared/next`, whose pull rebases b's commits onto a's and conflicts on every edited concept.
 */
export async function conflictBetweenTwo(
  start: (name: string, sync?: Partial<SyncSettings>) => Promise<Instance>,
  edits: readonly ConflictingEdit[],
  nextBody = "x\n",
): Promise<{ a: Instance; b: Instance; res: CallToolResult }> {
  const a = await start("a");
  const b = await start("b", { outDebounceMs: 60_000 });
  await a.call("map_create", { name: "shared", kind: "map" });
  for (const e of edits) await write(a, e.id, e.base);
  for (const e of edits) await write(b, e.id, e.onB);
  for (const e of edits) await write(a, e.id, e.onA);
  const res = await write(b, "shared/next", nextBody);
  return { a, b, res };
}
