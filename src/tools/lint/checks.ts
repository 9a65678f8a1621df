/**
 * The lint check table (data) and the runner. Add a check by writing a LintCheck and listing
 * it here; `lint` validates names against this table. The runner streams the KB once
 * (context.ts) and tallies the findings in bounded memory (tally.ts).
 */

import { KbError } from "../../common/errors.js";
import type { KbStore } from "../../kb/core/api.js";
import type { ConceptDoc, MapDescriptor } from "../../kb/core/types.js";
import type { LintCheck } from "./check.js";
import { machinePath, missingRequiredField, staleClaim } from "./checks-fields.js";
import { contractMalformed, importedDraft, legacyArchiveDescriptor } from "./checks-go.js";
import { brokenLink, indexIncomplete, orphan, orphanAsset } from "./checks-links.js";
import {
  conceptOversize,
  expandedAmbiguous,
  expandedAsCategory,
  expandedMissingIndex,
  mapOversize,
} from "./checks-structure.js";
import { DEFAULT_LIMITS, type LintLimits, readLintContext } from "./context.js";
import { IssueTally } from "./tally.js";

export const LINT_CHECKS: readonly LintCheck[] = [
  brokenLink,
  orphan,
  staleClaim,
  missingRequiredField,
  conceptOversize,
  mapOversize,
  expandedMissingIndex,
  expandedAmbiguous,
  expandedAsCategory,
  orphanAsset,
  indexIncomplete,
  machinePath,
  importedDraft,
  legacyArchiveDescriptor,
  contractMalformed,
];

/** The checks named (all when absent). Unknown names → `invalid_argument` listing the known. */
export function selectChecks(names?: readonly string[]): LintCheck[] {
  if (!names || names.length === 0) return [...LINT_CHECKS];
  return names.map((name) => {
    const check = LINT_CHECKS.find((c) => c.name === name);
    if (!check) {
      throw new KbError(
        "invalid_argument",
        `unknown lint check "${name}"; known: ${LINT_CHECKS.map((c) => c.name).join(", ")}`,
      );
    }
    return check;
  });
}

export interface LintOptions {
  now: Date;
  limits?: LintLimits;
  /** Checks to run (default: all). */
  checks?: readonly LintCheck[];
  /** Only issues about ids (or data/ paths) under this prefix. */
  prefix?: string;
  /** Issues kept per check and listed in the report (counts cover all). */
  listed: number;
  /** Shown every concept while its body is in hand (gate_check validates it there). */
  onDoc?: (doc: ConceptDoc, maps: readonly MapDescriptor[]) => void;
  onRead?: (done: number, total: number) => void;
}

/** Runs the lint checks over the KB in one streamed pass; `tally.report()` has the issues. */
export async function lintKb(
  store: KbStore,
  opts: LintOptions,
): Promise<{ tally: IssueTally; checked: number }> {
  const checks = opts.checks ?? LINT_CHECKS;
  const tally = new IssueTally(checks, opts.listed, opts.prefix);
  const perDoc = checks.filter((c) => c.perDoc);
  const ctx = await readLintContext(
    store,
    opts.now,
    opts.limits ?? DEFAULT_LIMITS,
    (view, env) => {
      for (const check of perDoc) tally.add(check, check.perDoc?.(view, env) ?? []);
      opts.onDoc?.(view.doc, env.maps);
    },
    opts.onRead,
  );
  for (const check of checks) {
    if (!check.run) continue;
    tally.add(check, check.run(ctx));
    // Each whole-KB check is one synchronous run over the facts: let other calls in between.
    await new Promise((r) => setImmediate(r));
  }
  return { tally, checked: ctx.docs.length };
}
