/**
 * The shape of a lint check: data (name, severity, one-line explanation) plus pure runs. A pass
 * streams the KB (docs/decisions.md "Whole-KB passes stream"), so a check looks at a concept's
 * body in `perDoc`, while that one concept is in hand, and at the whole KB in `run`, afterwards,
 * from what the pass kept: ids, placements, the link graph, indexes and assets — no bodies.
 */
import type { UnresolvedLinks } from "../../kb/core/link-graph.js";
import type { LinkRef } from "../../kb/core/markdown.js";
import type { ConceptDoc } from "../../kb/core/types.js";
import type { LintContext, LintEnv } from "./context.js";

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

/** One concept as the stream hands it over: the document, its links and those no edge took. */
export interface DocView {
  doc: ConceptDoc;
  links: readonly LinkRef[];
  unresolved: UnresolvedLinks;
}

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
