/**
 * The tool registry is DATA (design.md P4): one ToolSpec per tool, one file per family exporting
 * ToolSpec[] built with defineTool (define.ts), whose typed argument shape gives `inputSchema`
 * and the handler's argument type. A tool without a resource class cannot register (see
 * registry.ts).
 */
import type { KbStore } from "../kb/core/api.js";
import type { KbSettings, Visibility } from "../kb/core/types.js";
import type { CallReads } from "./call-reads.js";
import type { ToolRuntime } from "./tool-runtime.js";

/**
 * Authorization resource class (D118):
 * - `exact`: one concept/asset named by the arguments (`targets`);
 * - `collection`: many concepts, filtered per element by the caller's visibility before limits;
 * - `src-dst`: both ends of a move;
 * - `curated-index`: a map's index.md (root index → whole-KB);
 * - `batch`: every operation's target;
 * - `whole`: the whole KB.
 */
export type ResourceClass =
  | "exact"
  | "collection"
  | "src-dst"
  | "curated-index"
  | "batch"
  | "whole";

export type JsonSchema = {
  type: "object";
  properties: Record<string, unknown>;
  required?: string[];
  additionalProperties?: boolean;
  [key: string]: unknown;
};

/** A concept (or asset) a call touches, for exact / src-dst / batch authorization. */
export interface ToolTarget {
  /** Concept id, or for assets a data/-relative path (its first segment is the map). */
  id: string;
  /** Type the write would give it (`frontmatter.type` in the arguments), if any. */
  proposedType?: string;
  /** Whether the target is written (true) or only read. */
  write: boolean;
}

export interface ToolContext {
  runtime: ToolRuntime;
  /** What the caller may see; collection tools MUST pass it to every query before the limit. */
  visibility: Visibility;
  principalId: string;
  now: () => Date;
  /** Present when the caller asked for progress: call as work advances (done of total). */
  progress?: (done: number, total?: number) => void;
  /**
   * The concepts this call has read already (call-reads.ts): a handler reading its target takes
   * it from here. Absent for direct callers (tests): read the store.
   */
  reads?: CallReads;
}

export interface ToolSpec {
  name: string;
  /** What it does, key arguments, errors — as few words as that takes (tools/list is paid per round trip). */
  description: string;
  inputSchema: JsonSchema;
  readOnly: boolean;
  /** Hidden from tools/list in the `agent` profile; still callable. */
  advanced: boolean;
  destructive?: boolean;
  idempotent?: boolean;
  resource: ResourceClass;
  /** Argument fields the audit may record: id-like strings and boolean/enum flags, never content. */
  auditFields: string[];
  /**
   * Go v0.5 argument names accepted for ours (`{source_id: "from"}`), never listed in the schema
   * (tools/list stays as is). args.ts renames them before validation, so authorization, audit and
   * the handler only ever see our names (docs/migrating-from-go.md). `null`: accepted and
   * dropped, for a Go argument whose request our tool always fulfils (index_get's with_hash).
   */
  aliases?: Readonly<Record<string, string | null>>;
  /** Registered for a KB only when this returns true. */
  enabledFor?: (settings: KbSettings) => boolean;
  /** The config key that enables it (named in errors when a KB does not register it). */
  enableKey?: string;
  /** Targets for exact / src-dst / batch / curated-index classes. */
  targets?: (args: Record<string, unknown>) => ToolTarget[];
  /**
   * Further targets only the store can name (e.g. the satellites a recursive concept_delete
   * removes), added to `targets` before authorization and again under the lock.
   */
  storeTargets?: (args: Record<string, unknown>, store: KbStore) => Promise<ToolTarget[]>;
  /**
   * True when these arguments need whole-KB access of the tool's kind (read or write) on top of
   * the class check: graph_neighbors depth > 1, index_patch on the root index, concept_move with
   * link rewriting (D118).
   */
  requiresWholeKb?: (args: Record<string, unknown>) => boolean;
  /**
   * True when these arguments make the call a whole-KB pass (it reads every concept, or walks the
   * whole history): the call pipeline runs it through the KB's pass queue, which bounds how many
   * run at once and how many one principal may hold (pass-queue.ts, docs/operations.md).
   */
  wholeKbPass?: (args: Record<string, unknown>) => boolean;
  /**
   * Runs the tool. Returns a JSON-serializable result (rendered as compact JSON text).
   * Throws KbError for domain failures. Write tools call `ctx.runtime.apply(plan)`; the surface
   * holds the lock and makes the one commit afterwards.
   */
  handler: (args: Record<string, unknown>, ctx: ToolContext) => Promise<unknown>;
  /**
   * The handler in two halves (defineTool sets them): `parse` turns validated arguments into the
   * handler's typed ones, `run` runs on those. The call pipeline validates and parses once, before
   * authorization, and calls `run` (args.ts checkArgs); `handler` (validate, parse, run) stays the
   * entry of direct callers and of hand-written specs.
   */
  typed?: {
    parse: (args: Record<string, unknown>) => unknown;
    run: (args: unknown, ctx: ToolContext) => Promise<unknown>;
  };
}
