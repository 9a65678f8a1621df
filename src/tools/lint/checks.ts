/**
 * The lint check table (data) and the runner. Add a check by writing a LintCheck and listing
 * it here; `lint` validates names against this table.
 */
import { KbError } from "../../kb/errors.js";
import type { LintCheck, LintIssue } from "./check.js";
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
import type { LintContext } from "./context.js";

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

/** True when an issue concerns something under `prefix` (id prefix or data/<prefix> path). */
function underPrefix(issue: LintIssue, prefix: string): boolean {
  const p = prefix.replace(/\/+$/, "");
  if (issue.id !== undefined) return issue.id === p || issue.id.startsWith(`${p}/`);
  return issue.path?.startsWith(`data/${p}/`) ?? false;
}

export function runLint(
  ctx: LintContext,
  checks: readonly LintCheck[],
  prefix?: string,
): LintIssue[] {
  const issues = checks.flatMap((c) =>
    c.run(ctx).map((f) => ({ check: c.name, severity: c.severity, ...f })),
  );
  return prefix ? issues.filter((i) => underPrefix(i, prefix)) : issues;
}
