/**
 * What the SDK glue needs from a tool surface: the descriptor list of a profile (built once)
 * and the one call path. Implemented by KbSurface (one KB) and RoutedSurface (several KBs).
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ToolSpec } from "../tools/spec.js";
import type { CallContext } from "./context.js";

/** `agent` (default) hides advanced tools from tools/list; `full` lists all. Both call all. */
export type ToolsProfile = "agent" | "full";

/** A profile's descriptor list, frozen, with its JSON serialized once (bytes for benchmarks). */
export interface DescriptorList {
  readonly tools: readonly Tool[];
  readonly json: string;
}

export interface ToolSurface {
  /** KB names this surface reaches (one for a KbSurface, the binding for a RoutedSurface). */
  readonly kbNames: readonly string[];
  descriptors(profile: ToolsProfile): DescriptorList;
  /** Never throws: every failure is rendered as an `isError` result. */
  callTool(name: string, args: unknown, ctx: CallContext): Promise<CallToolResult>;
}

/** The tools/list descriptor of one spec. Annotations only where they say something. */
export function descriptorOf(spec: ToolSpec): Tool {
  const annotations: Record<string, boolean> = {};
  if (spec.readOnly) annotations.readOnlyHint = true;
  if (spec.destructive !== undefined) annotations.destructiveHint = spec.destructive;
  if (spec.idempotent !== undefined) annotations.idempotentHint = spec.idempotent;
  const tool: Tool = {
    name: spec.name,
    description: spec.description,
    inputSchema: spec.inputSchema as Tool["inputSchema"],
  };
  if (Object.keys(annotations).length > 0) tool.annotations = annotations;
  return tool;
}

/** Freezes a descriptor list deeply, so nothing (a routed view included) can alter it later. */
export function freezeList(tools: Tool[]): DescriptorList {
  const copy = structuredClone(tools);
  deepFreeze(copy);
  return Object.freeze({ tools: copy, json: JSON.stringify({ tools: copy }) });
}

function deepFreeze(value: unknown): void {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}

/** A text result; `isError` only when set. */
export function textResult(text: string, isError = false): CallToolResult {
  return isError
    ? { content: [{ type: "text", text }], isError: true }
    : { content: [{ type: "text", text }] };
}
