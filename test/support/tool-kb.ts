/**
 * Test helpers for tool handlers: a real temp KB (git + SQLite index) and `callTool`, which
 * emulates the MCP surface for one call — validate arguments, then for writes beginWrite →
 * handler → ONE commit `<tool>: <target>` of the session's paths → endWrite.
 */
import { join } from "node:path";
import type { KbSettings, Visibility } from "../../src/kb/core/types.js";
import { openKb } from "../../src/kb/store/store.js";
import { KbRuntime } from "../../src/runtime/kb-runtime.js";
import { openKbIndex } from "../../src/search/index.js";
import { validateArgs } from "../../src/tools/args.js";
import type { ToolContext, ToolSpec } from "../../src/tools/spec.js";
import { git, seedKb, testKbSettings } from "./kb.js";
import { tempDir } from "./temp-dir.js";

// The shared builders (test/support/kb.ts); re-exported for the suites that import them here.
export { GIT_ENV, TEST_AUTHOR } from "./kb.js";

export interface TempKb {
  root: string;
  settings: KbSettings;
  runtime: KbRuntime;
  cleanup: () => Promise<void>;
}

export interface TempKbOptions {
  allowArtifactWrite?: boolean;
  /** Existing KB to open instead of initializing a fresh one (e.g. a copied fixture). */
  existingRoot?: string;
  /** Files (KB-relative path → content) written into the fresh KB and committed before it opens. */
  files?: Record<string, string>;
}

export function testSettings(root: string, opts: TempKbOptions = {}): KbSettings {
  return testKbSettings(root, { allowArtifactWrite: opts.allowArtifactWrite });
}

/** A fresh KB in a temp dir (initKb, then `files` committed), opened with its search index. */
export async function makeTempKb(opts: TempKbOptions = {}): Promise<TempKb> {
  const tmp = tempDir("carto-tools-");
  const root = opts.existingRoot ?? join(tmp.dir, "kb");
  if (!opts.existingRoot) await seedKb(root, opts.files ?? {});
  const settings = testSettings(root, opts);
  const store = await openKb(settings);
  const { index } = await openKbIndex(store);
  const runtime = new KbRuntime(store, index);
  return {
    root,
    settings,
    runtime,
    cleanup: async () => {
      index.close();
      tmp.cleanup();
    },
  };
}

export function contextFor(
  runtime: KbRuntime,
  visibility: Visibility = { all: true },
): ToolContext {
  return { runtime, visibility, principalId: "test", now: () => new Date() };
}

/**
 * Calls one tool the way the surface does. Write tools: beginWrite, run, then one commit of the
 * session's paths named `<tool>: <targets joined by ", ">` (as the surface does); the session
 * always ends.
 */
export async function callTool(
  runtime: KbRuntime,
  spec: ToolSpec,
  args: unknown,
  opts: { visibility?: Visibility } = {},
): Promise<unknown> {
  const valid = validateArgs(spec, args);
  const ctx = contextFor(runtime, opts.visibility);
  if (spec.readOnly) return spec.handler(valid, ctx);
  const session = runtime.beginWrite();
  try {
    const result = await spec.handler(valid, ctx);
    if (session.paths.size > 0) {
      await runtime.store.commit(
        [...session.paths],
        `${spec.name}: ${session.targets.length > 0 ? session.targets.join(", ") : spec.name}`,
      );
    }
    return result;
  } finally {
    runtime.endWrite();
  }
}

/** Number of commits on HEAD of the KB repo. */
export function commitCount(root: string): number {
  return Number(git(root, ["rev-list", "--count", "HEAD"]));
}

/** Subject of the HEAD commit. */
export function headSubject(root: string): string {
  return git(root, ["log", "-1", "--format=%s"]);
}

/** Finds a tool by name in a family list (throws when missing, so a typo fails loudly). */
export function tool(specs: readonly ToolSpec[], name: string): ToolSpec {
  const spec = specs.find((s) => s.name === name);
  if (!spec) throw new Error(`tool ${name} not in list`);
  return spec;
}

/** Runs `fn` expecting a KbError with `code`; returns it. */
export async function expectKbError(
  fn: () => Promise<unknown>,
  code: string,
): Promise<Error & { code: string }> {
  try {
    await fn();
  } catch (err) {
    const e = err as Error & { code?: string };
    if (e.code !== code)
      throw new Error(`expected ${code}, got ${e.code ?? "no code"}: ${e.message}`);
    return e as Error & { code: string };
  }
  throw new Error(`expected ${code}, but the call succeeded`);
}
