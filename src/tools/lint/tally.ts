/**
 * The issues of one lint pass, in bounded memory: every finding is counted, but only the first
 * `listed` of each check (under `prefix`, when given) are kept, and kept as copies that hold no
 * file text (kb/detach.ts). The report lists them check by check, in table order.
 */
import { detached } from "../../kb/core/detach.js";
import type { Finding, LintCheck, LintIssue } from "./check.js";

export interface LintReport {
  /** The first `listed` issues, check by check. */
  issues: LintIssue[];
  errors: number;
  warnings: number;
  truncated: boolean;
}

/** True when a finding concerns something under `prefix` (id prefix or data/<prefix> path). */
function underPrefix(finding: Finding, prefix: string): boolean {
  const p = prefix.replace(/\/+$/, "");
  if (finding.id !== undefined) return finding.id === p || finding.id.startsWith(`${p}/`);
  return finding.path?.startsWith(`data/${p}/`) ?? false;
}

export class IssueTally {
  private readonly kept = new Map<string, LintIssue[]>();
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly checks: readonly LintCheck[],
    private readonly listed: number,
    private readonly prefix?: string,
  ) {}

  add(check: LintCheck, findings: readonly Finding[]): void {
    for (const f of findings) {
      if (this.prefix && !underPrefix(f, this.prefix)) continue;
      this.counts.set(check.name, (this.counts.get(check.name) ?? 0) + 1);
      const kept = this.kept.get(check.name) ?? [];
      if (kept.length >= this.listed) continue;
      kept.push({
        check: check.name,
        severity: check.severity,
        ...f,
        message: detached(f.message),
      });
      this.kept.set(check.name, kept);
    }
  }

  /** The report; `only` narrows it to one severity (gate_check: errors). */
  report(only?: LintIssue["severity"]): LintReport {
    const issues: LintIssue[] = [];
    let errors = 0;
    let warnings = 0;
    for (const check of this.checks) {
      const n = this.counts.get(check.name) ?? 0;
      if (check.severity === "error") errors += n;
      else warnings += n;
      if (only !== undefined && check.severity !== only) continue;
      issues.push(...(this.kept.get(check.name) ?? []));
    }
    const total = only === "error" ? errors : only === "warning" ? warnings : errors + warnings;
    return {
      issues: issues.slice(0, this.listed),
      errors,
      warnings,
      truncated: total > this.listed,
    };
  }
}
