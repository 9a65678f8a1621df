/**
 * Argument accessors shared by the write families. The schema (args.ts) has already checked the
 * types; these only narrow them and enforce the cross-field rules a JSON schema cannot state
 * (single-edit form vs `edits`, from/to vs `moves`).
 */
import type { BodyEdit, ConceptMove, WritePlan } from "../../kb/api.js";
import { KbError } from "../../kb/errors.js";
import type { Frontmatter } from "../../kb/types.js";
import { arr, bool, nested, str } from "../schema-legacy.js";
import type { ToolContext, ToolTarget } from "../spec.js";

export function reqStr(args: Record<string, unknown>, key: string): string {
  const value = args[key];
  if (typeof value !== "string" || value === "") {
    throw new KbError("invalid_argument", `'${key}' is required: pass a non-empty string`, {
      argument: key,
    });
  }
  return value;
}

export function optStr(args: Record<string, unknown>, key: string): string | undefined {
  const value = args[key];
  return typeof value === "string" ? value : undefined;
}

export function optBool(args: Record<string, unknown>, key: string): boolean | undefined {
  const value = args[key];
  return typeof value === "boolean" ? value : undefined;
}

export function optRecord(
  args: Record<string, unknown>,
  key: string,
): Record<string, unknown> | undefined {
  const value = args[key];
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** `frontmatter.type` when the call sets it to a string (the type a write would give). */
export function proposedType(args: Record<string, unknown>): string | undefined {
  const type = optRecord(args, "frontmatter")?.type;
  return typeof type === "string" && type !== "" ? type : undefined;
}

/** The one target of an exact write on `args.id`. */
export function writeTarget(args: Record<string, unknown>): ToolTarget[] {
  const id = typeof args.id === "string" ? args.id : "";
  const type = proposedType(args);
  return [type ? { id, proposedType: type, write: true } : { id, write: true }];
}

/** Schema of one body edit and of the single-edit properties, shared by patch tools. */
export const EDIT_SCHEMA = nested({ old_string: str(), new_string: str(), replace_all: bool() }, [
  "old_string",
  "new_string",
]);
export const EDIT_PROPS = {
  old_string: str(),
  new_string: str(),
  replace_all: bool("Replace every occurrence"),
  edits: arr(EDIT_SCHEMA, "Ordered edits, applied atomically"),
};

/**
 * The ordered edits of a patch call: either the single form (`old_string`/`new_string`) or
 * `edits`, never both. Returns undefined when neither is given.
 */
export function editsFrom(args: Record<string, unknown>): BodyEdit[] | undefined {
  const single = args.old_string !== undefined || args.new_string !== undefined;
  const list = args.edits as BodyEdit[] | undefined;
  if (single && list !== undefined) {
    throw new KbError("invalid_argument", "pass either old_string/new_string or edits, not both");
  }
  if (single) {
    if (typeof args.old_string !== "string" || typeof args.new_string !== "string") {
      throw new KbError("invalid_argument", "'old_string' and 'new_string' must be given together");
    }
    const edit: BodyEdit = { old_string: args.old_string, new_string: args.new_string };
    if (args.replace_all === true) edit.replace_all = true;
    return [edit];
  }
  if (list !== undefined) {
    if (list.length === 0)
      throw new KbError("invalid_argument", "'edits' is empty: pass at least one edit");
    if (args.replace_all !== undefined) {
      throw new KbError(
        "invalid_argument",
        "'replace_all' belongs inside each edit when using edits",
      );
    }
    return list;
  }
  return undefined;
}

/** The moves of a concept_move call: `from`/`to` or `moves`, never both, at least one. */
export function movesFrom(args: Record<string, unknown>): ConceptMove[] {
  const single = args.from !== undefined || args.to !== undefined;
  const list = args.moves as ConceptMove[] | undefined;
  if (single && list !== undefined)
    throw new KbError("invalid_argument", "pass either from/to or moves, not both");
  if (single) return [{ from: reqStr(args, "from"), to: reqStr(args, "to") }];
  if (list === undefined || list.length === 0) {
    throw new KbError(
      "invalid_argument",
      "'moves' is required: pass from/to or a non-empty moves list",
    );
  }
  return list;
}

/** Frontmatter argument as data; the store validates values and the required `type`. */
export function frontmatterArg(
  args: Record<string, unknown>,
  key = "frontmatter",
): Frontmatter | undefined {
  return optRecord(args, key) as Frontmatter | undefined;
}

/** Applies a plan for the current write session and returns its tool-facing summary. */
export async function applyPlan(
  ctx: ToolContext,
  plan: WritePlan,
): Promise<Record<string, unknown>> {
  await ctx.runtime.apply(plan);
  return plan.result;
}
