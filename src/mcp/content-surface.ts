/**
 * What the SDK glue needs for resources, prompts and completions, next to the tool
 * surface: implemented by KbSurface (one KB) and RoutedSurface (the bound KBs, URIs and a `kb`
 * prompt argument carrying the KB). Every method takes the request's CallContext: content is
 * read through the KB's call pipeline, authorized and audited like a tool.
 */
import {
  type CompleteResult,
  ErrorCode,
  type GetPromptResult,
  type ListResourcesResult,
  McpError,
  type Prompt,
  type ReadResourceResult,
  type ResourceTemplate,
} from "@modelcontextprotocol/sdk/types.js";
import type { CallContext } from "./context.js";
import type { KbEvent } from "./kb-events.js";

export type CompletionRef =
  | { type: "ref/prompt"; name: string }
  | { type: "ref/resource"; uri: string };

export interface ContentSurface {
  listResources(cursor: string | undefined, ctx: CallContext): Promise<ListResourcesResult>;
  readResource(uri: string, ctx: CallContext): Promise<ReadResourceResult>;
  resourceTemplates(): ResourceTemplate[];
  listPrompts(ctx: CallContext): Promise<Prompt[]>;
  getPrompt(name: string, args: Record<string, string>, ctx: CallContext): Promise<GetPromptResult>;
  complete(
    ref: CompletionRef,
    argument: { name: string; value: string },
    context: Record<string, string>,
    ctx: CallContext,
  ): Promise<CompleteResult["completion"]>;
  /** True when `tool` writes (a success changes resources: list_changed / updated). */
  writes(tool: string): boolean;
  /** Warnings and successful writes of the KBs reached, until the returned function is called. */
  onEvent(listener: (kb: string, event: KbEvent) => void): () => void;
}

export function isContentSurface(value: unknown): value is ContentSurface {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as ContentSurface).readResource === "function"
  );
}

/**
 * Opaque pagination cursor: which KB of the binding (routed) and the id the page starts at
 * (keyset paging: a page costs the same wherever it is; null = the KB's first page).
 */
export interface Cursor {
  kb: number;
  from: string | null;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.kb, c.from])).toString("base64url");
}

export function decodeCursor(cursor: string | undefined): Cursor {
  if (cursor === undefined) return { kb: 0, from: null };
  try {
    const v = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
    if (
      Array.isArray(v) &&
      v.length === 2 &&
      Number.isSafeInteger(v[0]) &&
      v[0] >= 0 &&
      (v[1] === null || typeof v[1] === "string")
    )
      return { kb: v[0], from: v[1] };
  } catch {
    // fall through
  }
  throw new McpError(
    ErrorCode.InvalidParams,
    "Invalid params for resources/list: cursor is not one this server returned (start again without it)",
  );
}

/**
 * Completion answer: at most 100 values and whether more exist (ids are read only as far as
 * the first 101 matches, so no total is claimed for them).
 */
export function completion(values: string[], more = false): CompleteResult["completion"] {
  const kept = values.slice(0, 100);
  return { values: kept, hasMore: more || values.length > kept.length };
}
