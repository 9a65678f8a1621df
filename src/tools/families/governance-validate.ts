/**
 * validate, lint and gate_check: whole-KB quality checks. validate applies the write-path rules
 * (type present, strict palette, required fields — kb/maps.ts owns them) to what is on disk;
 * lint runs the check table of src/tools/lint; gate_check summarizes both as pass/fail. Each
 * whole-KB run streams the concepts and keeps only what it lists (docs/decisions.md).
 */

import { isKbError } from "../../common/errors.js";
import { detached } from "../../kb/core/detach.js";
import { requireType } from "../../kb/core/frontmatter.js";
import { validateId } from "../../kb/core/ids.js";
import { validateAgainstMap } from "../../kb/core/maps.js";
import type { ConceptDoc, MapDescriptor } from "../../kb/core/types.js";
import { defineTool } from "../define.js";
import { LINT_CHECKS, lintKb, selectChecks } from "../lint/checks.js";

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

/**
 * Progress of a pass as the first of two phases (reading and checking, then the answer):
 * `done` of `total` concepts read is reported as a fraction of 1, of a total of 2.
 */
function phaseOne(done: number, total: number): number {
  return total === 0 ? 1 : done / total;
}

/** Counts every problem, keeps the first `listed` (copies holding no file text). */
class ProblemTally {
  readonly kept: ValidationProblem[] = [];
  total = 0;
  constructor(private readonly listed: number) {}
  add(problems: readonly ValidationProblem[]): void {
    for (const p of problems) {
      this.total++;
      if (this.kept.length < this.listed) this.kept.push({ ...p, message: detached(p.message) });
    }
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
  wholeKbPass: (args) => args.id === undefined,
  handler: async (args, ctx) => {
    const { store } = ctx.runtime;
    const { id } = args;
    const tally = new ProblemTally(MAX_LISTED);
    let checked = 0;
    if (id) {
      validateId(id);
      const [maps, doc] = await Promise.all([store.maps(), store.readConcept(id)]);
      tally.add(validateDoc(doc, maps));
      checked = 1;
      ctx.progress?.(1, 2); // read and checked; the answer follows
    } else {
      // Streamed: one batch of concepts in memory at a time (docs/decisions.md).
      const [maps, files] = await Promise.all([store.maps(), store.scanConceptFiles()]);
      for await (const doc of store.streamConcepts(files)) {
        tally.add(validateDoc(doc, maps));
        if (++checked % 1000 === 0) ctx.progress?.(phaseOne(checked, files.length), 2);
      }
      ctx.progress?.(1, 2);
    }
    return {
      checked,
      valid: tally.total === 0,
      problems: tally.kept,
      total: tally.total,
      truncated: tally.total > MAX_LISTED,
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
  wholeKbPass: () => true,
  handler: async (args, ctx) => {
    const checks = selectChecks(args.checks);
    const { tally } = await lintKb(ctx.runtime.store, {
      now: ctx.now(),
      checks,
      prefix: args.prefix,
      listed: MAX_LISTED,
      onRead: (done, total) => ctx.progress?.(phaseOne(done, total), 2),
    });
    const report = tally.report();
    return {
      checks: checks.map((c) => c.name),
      errors: report.errors,
      warnings: report.warnings,
      issues: report.issues,
      truncated: report.truncated,
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
  wholeKbPass: () => true,
  handler: async (_args, ctx) => {
    const validation = new ProblemTally(GATE_LISTED);
    // One streamed pass: each concept is validated while lint has it in hand.
    const { tally } = await lintKb(ctx.runtime.store, {
      now: ctx.now(),
      listed: GATE_LISTED,
      onDoc: (doc, maps) => validation.add(validateDoc(doc, maps)),
      onRead: (done, total) => ctx.progress?.(phaseOne(done, total), 2),
    });
    const lint = tally.report("error");
    const failures = [
      ...validation.kept.map((p) => ({
        source: "validate",
        id: p.id,
        message: `${p.code}: ${p.message}`,
      })),
      ...lint.issues.map((i) => ({
        source: `lint:${i.check}`,
        ...(i.id !== undefined ? { id: i.id } : { path: i.path }),
        message: i.message,
      })),
    ];
    const total = validation.total + lint.errors;
    return {
      pass: total === 0,
      validation_problems: validation.total,
      lint_errors: lint.errors,
      lint_warnings: lint.warnings,
      failures: failures.slice(0, GATE_LISTED),
      truncated: total > GATE_LISTED,
    };
  },
});

export const validationTools: ToolSpec[] = [validate, lint, gateCheck];
