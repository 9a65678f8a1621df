/**
 * ConsoleKbs: the only way console pages touch a KB (src/console/README.md). Reads go through the
 * tools — `KbSurface.callTool`, the one call pipeline: authorization, audit, metrics, sync — as
 * the viewer's own principal with transport `console`, so a page shows exactly what the same
 * token sees through MCP (docs/decisions.md "Console: pages read through the tools"). A KB the
 * viewer may not read is answered like one that does not exist (hidden ≡ missing).
 */
import { randomUUID } from "node:crypto";
import { visibilityFor } from "../auth/decide.js";
import type { Principal } from "../auth/types.js";
import type { Placement, Visibility } from "../kb/core/types.js";
import { isVisible } from "../kb/core/visibility.js";
import type { AuditFiles, Cartographer } from "../mcp/app.js";
import type { CallContext } from "../mcp/context.js";
import type { KbRuntime } from "../runtime/kb-runtime.js";
import { LintCache, type LintFigures } from "./lint-cache.js";
import { ConsoleError, type ToolFailure, type ToolOutcome } from "./outcome.js";
import type { Viewer } from "./types.js";

export { ConsoleError, type ToolFailure, type ToolOutcome } from "./outcome.js";

/** What `runtime()` hands a page for reads no tool gives (git history): never without a check. */
export interface KbAccess {
  readonly kb: string;
  readonly runtime: KbRuntime;
  /** The KB's root directory (for its git runner); never shown to a viewer. */
  readonly root: string;
  /** What the viewer may read of this KB (auth/decide.ts visibilityFor, access `r`). */
  readonly visibility: Visibility;
  /** True when the viewer may see a concept at `placement` with `type` (isVisible). */
  sees(placement: Placement, type: string | null): boolean;
}

export interface ConsoleKbsOptions {
  /** Clock of the lint cache (tests). */
  now?: () => number;
  /** How long lint figures are reused (lint-cache.ts). Default 5 minutes. */
  lintTtlMs?: number;
}

export class ConsoleKbs {
  readonly #lint: LintCache;

  constructor(
    private readonly app: Cartographer,
    opts: ConsoleKbsOptions = {},
  ) {
    this.#lint = new LintCache(
      (viewer, kb) => this.call<{ errors: number; warnings: number }>(viewer, kb, "lint", {}),
      opts.now,
      opts.lintTtlMs,
    );
  }

  /** Lint findings of `kb` as the viewer sees them, cached (lint-cache.ts); never waits for a pass. */
  lint(viewer: Viewer, kb: string): LintFigures {
    return this.#lint.figures(viewer, kb);
  }

  /** Resolves when the lint passes under way have finished (tests, benchmarks). */
  lintSettled(): Promise<void> {
    return this.#lint.settled();
  }

  /** The server's audit log files (the audit page reads them); null when it keeps none. */
  auditFiles(): AuditFiles | null {
    return this.app.auditFiles;
  }

  /** Names of the served KBs the viewer may read, in mount order. */
  visible(viewer: Viewer): string[] {
    return this.readableBy(viewer.principal);
  }

  /** Names of the served KBs `principal` may read (a Viewer is built with them). */
  readableBy(principal: Principal): string[] {
    return [...this.app.surfaces.keys()].filter(
      (kb) => visibilityFor(principal.policy, kb, "r") !== null,
    );
  }

  /** True when `kb` is served and the viewer may read it. */
  canRead(viewer: Viewer, kb: string): boolean {
    return this.#readable(viewer, kb) !== null;
  }

  /**
   * Calls tool `name` on `kb` as the viewer (the real pipeline) and parses its JSON result. A KB
   * the viewer cannot read, or that is not served, fails `not_found` before any call.
   */
  async call<T = unknown>(
    viewer: Viewer,
    kb: string,
    name: string,
    args: Record<string, unknown> = {},
  ): Promise<ToolOutcome<T>> {
    const surface = this.app.surfaces.get(kb);
    if (surface === undefined || this.#readable(viewer, kb) === null) return NOT_FOUND;
    const ctx: CallContext = {
      principal: viewer.principal,
      transport: "console",
      requestId: randomUUID(),
    };
    const result = await surface.callTool(name, args, ctx);
    const first = result.content[0];
    const text = first?.type === "text" ? first.text : "";
    if (result.isError) return failureOf(text);
    try {
      return { ok: true, value: JSON.parse(text) as T };
    } catch {
      return { ok: false, code: "internal", message: "the tool answered something not JSON" };
    }
  }

  /** `call`, throwing a ConsoleError on failure (the dispatcher turns it into an error page). */
  async read<T = unknown>(
    viewer: Viewer,
    kb: string,
    name: string,
    args: Record<string, unknown> = {},
  ): Promise<T> {
    const r = await this.call<T>(viewer, kb, name, args);
    if (!r.ok) throw new ConsoleError(r.code, r.message);
    return r.value;
  }

  /**
   * The runtime of `kb` for what no tool gives, after checking the viewer may read it; null when
   * not (the caller answers as for a missing KB). Everything shown from it must be filtered with
   * `sees` (hidden ≡ missing).
   */
  runtime(viewer: Viewer, kb: string): KbAccess | null {
    const surface = this.app.surfaces.get(kb);
    const visibility = this.#readable(viewer, kb);
    if (surface === undefined || visibility === null) return null;
    const runtime = surface.runtime;
    return Object.freeze({
      kb,
      runtime,
      root: runtime.store.root,
      visibility,
      sees: (placement: Placement, type: string | null) => isVisible(visibility, placement, type),
    });
  }

  /**
   * Which of `ids` exist and the viewer may see (rendered links: a hidden or missing target is
   * plain text). Answered from the index with the viewer's visibility in the query, as
   * concept_list is; an empty set when the KB is not readable.
   */
  visibleIds(viewer: Viewer, kb: string, ids: readonly string[]): Set<string> {
    const access = this.runtime(viewer, kb);
    if (access === null || ids.length === 0) return new Set();
    return access.runtime.index.visibleIds(ids, access.visibility);
  }

  #readable(viewer: Viewer, kb: string): Visibility | null {
    if (!this.app.surfaces.has(kb)) return null;
    return visibilityFor(viewer.principal.policy, kb, "r");
  }
}

const NOT_FOUND: ToolFailure = Object.freeze({
  ok: false,
  code: "not_found",
  message: "not found",
});

/** `<code>: <message>` (tools/result.ts renderError); the exact denials `forbidden`, `not found`. */
function failureOf(text: string): ToolFailure {
  if (text === "not found") return NOT_FOUND;
  if (text === "forbidden") return { ok: false, code: "forbidden", message: "forbidden" };
  const colon = text.indexOf(": ");
  const code = colon > 0 && /^[a-z_]+$/.test(text.slice(0, colon)) ? text.slice(0, colon) : "error";
  return { ok: false, code, message: text };
}
