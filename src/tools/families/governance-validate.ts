/**
 * validate, lint and gate_check: whole-KB quality checks. validate applies the write-path rules
 * (type present, strict palette, required fields — kb/maps.ts owns them) to what is on disk;
 * lint runs the check table of src/tools/lint; gate_check summarizes both as pass/fail.
 */
import { isKbError } from "../../kb/errors.js";
import { requireType } from "../../kb/frontmatter.js";
import { validateId } from "../../kb/ids.js";
import { validateAgainstMap } from "../../kb/maps.js";
import type { ConceptDoc, MapDescriptor } from "../../kb/types.js";
import { defineTool } from "../define.js";
import { LINT_CHECKS, runLint, selectChecks } from "../lint/checks.js";
import { readLintContext } from "../lint/context.js";
import { arr, nonEmptyStr, opt, str } from "../schema.js";
import type { ToolSpec } from "../spec.js";

const MAX_LISTED = 200;
const GATE_LISTED = 50;

export interface ValidationProblem {
  id: string;
  code: string;
  message: string;
}

/** The problems of one concept under the write-path rules (empty when valid). */
export function validateDoc(doc: ConceptDoc, maps: readonly MapDescriptor[]): ValidationProblem[] {
  try {
    requireType(doc.frontmatter);
    const map = maps.find((m) => m.name === (doc.map ?? doc.journal));
    if (map) validateAgainstMap(map, doc.id, doc.frontmatter);
    return [];
  } catch (err) {
    if (!isKbError(err)) throw err;
    return [{ id: doc.id, code: err.code, message: err.message }];
  }
}

const validate = defineTool({
  name: "validate",
  description:
    "Check frontmatter (type), strict palettes and required fields of one concept (id) or every concept. Errors: not_found.",
  args: { id: opt(nonEmptyStr("Absent = whole KB")) },
  readOnly: true,
  advanced: false,
  idempotent: true,
  resource: "whole",
  auditFields: ["id"],
  handler: async (args, ctx) => {
    const { store } = ctx.runtime;
    const { id } = args;
    if (id) validateId(id);
    const [maps, docs] = await Promise.all([
      store.maps(),
      id ? store.readConcept(id).then((d) => [d]) : store.listConcepts(),
    ]);
    ctx.progress?.(1, 2); // read; checking follows
    const problems = docs.flatMap((d) => validateDoc(d, maps));
    return {
      checked: docs.length,
      valid: problems.length === 0,
      problems: problems.slice(0, MAX_LISTED),
      total: problems.length,
      truncated: problems.length > MAX_LISTED,
    };
  },
});

const lint = defineTool({
  name: "lint",
  // Go v0.5 argument names (docs/migrating-from-go.md).
  aliases: { scope: "prefix" },
  description: `Run KB lint checks (default all: ${LINT_CHECKS.map((c) => c.name).join(", ")}); prefix limits to ids under it. Errors: invalid_argument for an unknown check.`,
  args: { checks: opt(arr(str())), prefix: opt(nonEmptyStr()) },
  readOnly: true,
  advanced: false,
  idempotent: true,
  resource: "whole",
  auditFields: [],
  handler: async (args, ctx) => {
    const checks = selectChecks(args.checks);
    const lctx = await readLintContext(ctx.runtime.store, ctx.now());
    ctx.progress?.(1, 2); // read; the checks follow
    const issues = runLint(lctx, checks, args.prefix);
    return {
      checks: checks.map((c) => c.name),
      errors: issues.filter((i) => i.severity === "error").length,
      warnings: issues.filter((i) => i.severity === "warning").length,
      issues: issues.slice(0, MAX_LISTED),
      truncated: issues.length > MAX_LISTED,
    };
  },
});

const gateCheck = defineTool({
  name: "gate_check",
  description: "Pass/fail quality gate: validate problems plus lint errors (warnings do not fail).",
  readOnly: true,
  advanced: false,
  idempotent: true,
  resource: "whole",
  auditFields: [],
  handler: async (_args, ctx) => {
    const { store } = ctx.runtime;
    const lctx = await readLintContext(store, ctx.now());
    const validation = lctx.docs.flatMap((d) => validateDoc(d, lctx.maps));
    const issues = runLint(lctx, LINT_CHECKS);
    const errors = issues.filter((i) => i.severity === "error");
    const failures = [
      ...validation.map((p) => ({
        source: "validate",
        id: p.id,
        message: `${p.code}: ${p.message}`,
      })),
      ...errors.map((i) => ({
        source: `lint:${i.check}`,
        ...(i.id !== undefined ? { id: i.id } : { path: i.path }),
        message: i.message,
      })),
    ];
    return {
      pass: failures.length === 0,
      validation_problems: validation.length,
      lint_errors: errors.length,
      lint_warnings: issues.length - errors.length,
      failures: failures.slice(0, GATE_LISTED),
      truncated: failures.length > GATE_LISTED,
    };
  },
});

export const validationTools: ToolSpec[] = [validate, lint, gateCheck];
