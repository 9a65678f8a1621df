/**
 * concept_batch: several concept writes/patches/deletes as ONE commit. Every operation is
 * validated (arguments, then a full store plan) before the first byte is written; the merged
 * plan is applied atomically, so a late failure rolls everything back (design.md P2).
 */

import { isKbError, KbError } from "../../common/errors.js";
import type { WritePlan } from "../../kb/core/api.js";
import { parseValidated, validateArgs } from "../args.js";
import { defineTool } from "../define.js";
import { arr, enumOf, openObject, str } from "../schema.js";
import type { ToolContext, ToolSpec, ToolTarget } from "../spec.js";
import { applyPlan, proposedType } from "../support/write-plan.js";
import {
  CONCEPT_DELETE_ARGS,
  CONCEPT_PATCH_ARGS,
  CONCEPT_WRITE_ARGS,
  planDelete,
  planPatch,
  planWrite,
  writeTools,
} from "./write.js";

export const MAX_BATCH_OPS = 50;
export const MAX_BATCH_BYTES = 512 * 1024;

const OPS = { write: "concept_write", patch: "concept_patch", delete: "concept_delete" } as const;
type Op = keyof typeof OPS;
const OP_NAMES = Object.keys(OPS) as Op[];

function specFor(op: Op): ToolSpec {
  const spec = writeTools.find((s) => s.name === OPS[op]);
  if (!spec) throw new KbError("internal", `batch: tool ${OPS[op]} missing`);
  return spec;
}

function operationsOf<T>(ops: T[]): T[] {
  if (ops.length === 0) {
    throw new KbError("invalid_argument", "'operations' is required: pass 1 to 50 operations");
  }
  if (ops.length > MAX_BATCH_OPS) {
    throw new KbError(
      "too_large",
      `${ops.length} operations: a batch holds at most ${MAX_BATCH_OPS}; split it`,
    );
  }
  const bytes = Buffer.byteLength(JSON.stringify(ops), "utf8");
  if (bytes > MAX_BATCH_BYTES) {
    throw new KbError(
      "too_large",
      `batch is ${bytes} bytes: at most ${MAX_BATCH_BYTES} (512 KiB); split it`,
    );
  }
  return ops;
}

/**
 * Prefixes an error with the operation it belongs to (as `operations[i]`, the 0-based index an
 * agent uses, matching the schema errors' paths), keeping its stable code.
 */
function inOperation(index: number, op: Record<string, unknown>, err: unknown): unknown {
  if (!isKbError(err)) return err;
  const where = `operations[${index}] (${String(op.op)} ${String(op.id ?? "")})`;
  return new KbError(err.code, `${where}: ${err.message}`, { ...err.details, operation: index });
}

/**
 * Parses one operation's arguments (validated by the handler already, so not again) as its tool
 * does and plans it with that tool's planner.
 */
async function planOperation(
  op: Op,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<WritePlan> {
  const store = ctx.runtime.store;
  if (op === "write") return planWrite(store, parseValidated(CONCEPT_WRITE_ARGS, args));
  if (op === "patch") return planPatch(store, parseValidated(CONCEPT_PATCH_ARGS, args));
  return planDelete(store, parseValidated(CONCEPT_DELETE_ARGS, args));
}

function batchTarget(ids: string[]): string {
  return ids.length === 1 ? (ids[0] ?? "") : `${ids[0]} and ${ids.length - 1} more`;
}

const conceptBatch = defineTool({
  name: "concept_batch",
  contentHashAlias: true,
  description:
    "Apply ≤50 write/patch/delete operations ({op, …that tool's args}, distinct ids, ≤512 KiB) as one commit; all validated first, all or nothing. Errors: too_large; others name operations[i].",
  args: { operations: arr(openObject({ op: enumOf(OP_NAMES), id: str() })) },
  readOnly: false,
  advanced: false,
  resource: "batch",
  auditFields: [],
  targets: (args) => {
    const ops = Array.isArray(args.operations)
      ? (args.operations as Record<string, unknown>[])
      : [];
    return ops.map((op): ToolTarget => {
      const type = op.op === "delete" ? undefined : proposedType(op);
      const id = String(op.id ?? "");
      return type ? { id, proposedType: type, write: true } : { id, write: true };
    });
  },
  // A recursive delete removes its whole folder: every file in it is a write target, exactly
  // as concept_delete names them.
  storeTargets: async (args, store) => {
    const ops = Array.isArray(args.operations)
      ? (args.operations as Record<string, unknown>[])
      : [];
    const deleteTargets = specFor("delete").storeTargets;
    if (!deleteTargets) return [];
    const targets: ToolTarget[] = [];
    for (const op of ops) {
      if (op?.op === "delete") targets.push(...(await deleteTargets(op, store)));
    }
    return targets;
  },
  handler: async (args, ctx) => {
    const ops = operationsOf(args.operations);
    const seen = new Map<string, number>();
    const checked = ops.map((raw, index) => {
      try {
        const { op, ...rest } = raw;
        const valid = validateArgs(specFor(op), rest);
        const id = String(valid.id);
        const first = seen.get(id);
        if (first !== undefined) {
          throw new KbError(
            "invalid_argument",
            `id ${id} also appears in operations[${first}]: ids must be distinct`,
          );
        }
        seen.set(id, index);
        return { op, args: valid };
      } catch (err) {
        throw inOperation(index, raw, err);
      }
    });
    const plans: WritePlan[] = [];
    for (const [index, item] of checked.entries()) {
      try {
        plans.push(await planOperation(item.op, item.args, ctx));
        // Each planned operation, then applying and the commit (the pipeline ends at total).
        ctx.progress?.(index + 1, checked.length + 1);
      } catch (err) {
        throw inOperation(index, ops[index] ?? {}, err);
      }
    }
    const ids = checked.map((c) => String(c.args.id));
    const merged = ctx.runtime.store.planBatch(plans, batchTarget(ids));
    await applyPlan(ctx, merged);
    return { applied: plans.length, results: plans.map((p) => p.result) };
  },
});

export const batchTools: ToolSpec[] = [conceptBatch];
