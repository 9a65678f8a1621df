import type { DocView, LintContext, LintEnv } from "./context.js";

export type Severity = "error" | "warning";

export interface LintIssue {
  check: string;
  severity: Severity;
  /** Concept id the issue is about (absent for map- or file-level issues). */
  id?: string;
  /** KB-root-relative file, for issues about a non-concept file (asset, index). */
  path?: string;
  message: string;
}

/** What a check reports: severity and check name are filled in by the runner. */
export type Finding = Omit<LintIssue, "check" | "severity">;

export interface LintCheck {
  name: string;
  severity: Severity;
  /** One line: what the check flags and why it matters. */
  explanation: string;
  /** Findings about one concept, run as the pass reads it. */
  perDoc?: (view: DocView, env: LintEnv) => Finding[];
  /** Findings over the whole KB, run once the pass has read every concept. */
  run?: (ctx: LintContext) => Finding[];
}
