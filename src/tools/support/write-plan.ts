/**
 * What every write tool shares: applying its plan through the runtime (the surface makes the
 * one commit) and naming the concept it writes for authorization.
 */
import type { WritePlan } from "../../kb/core/api.js";
import type { ToolContext, ToolTarget } from "../spec.js";

/** Applies a plan for the current write session and returns its tool-facing summary. */
export async function applyPlan(
  ctx: ToolContext,
  plan: WritePlan,
): Promise<Record<string, unknown>> {
  await ctx.runtime.apply(plan);
  return plan.result;
}

/**
 * `frontmatter.type` when the call sets it to a string (the type a write would give). Reads the
 * arguments as validated by the schema, before parsing: targets are judged before the handler.
 */
export function proposedType(args: Record<string, unknown>): string | undefined {
  const fm = args.frontmatter;
  const type =
    typeof fm === "object" && fm !== null && !Array.isArray(fm)
      ? (fm as Record<string, unknown>).type
      : undefined;
  return typeof type === "string" && type !== "" ? type : undefined;
}

/** The one target of an exact write on `args.id`. */
export function writeTarget(args: Record<string, unknown>): ToolTarget[] {
  const id = typeof args.id === "string" ? args.id : "";
  const type = proposedType(args);
  return [type ? { id, proposedType: type, write: true } : { id, write: true }];
}
