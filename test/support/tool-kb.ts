/**
 * Test helpers for tool handlers: a real temp KB (git + SQLite index) with its runtime. Calls go
 * through the real pipeline with `callTool` (call-tool.ts); `directHandlerContext` is for the few
 * tests that run a handler by hand (e.g. with their own clock).
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

/** The context a handler sees, for a test that calls the handler itself (no pipeline). */
export function directHandlerContext(
  runtime: KbRuntime,
  visibility: Visibility = { all: true },
): ToolContext {
  return { runtime, visibility, principalId: "test", now: () => new Date() };
}

/**
 * Runs a READ handler by hand — arguments validated, no authorization, audit or lock — for a
 * test of what the handler itself guarantees where the pipeline would answer first (a narrow
 * principal's multi-hop graph walk is refused before it) or of the in-memory value it returns
 * (the same cached object, which rendering would copy).
 */
export async function callHandlerDirectly(
  runtime: KbRuntime,
  spec: ToolSpec,
  args: unknown,
  opts: { visibility?: Visibility } = {},
): Promise<unknown> {
  if (!spec.readOnly) throw new Error(`${spec.name} writes: call it through callTool`);
  return spec.handler(validateArgs(spec, args), directHandlerContext(runtime, opts.visibility));
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
