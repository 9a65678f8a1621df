/**
 * The governance family: quality checks (validate, lint, gate_check), KB and git state
 * (kb_status, commit_gate) and contradictions (contradiction_report, conflict_resolve).
 */
import type { ToolSpec } from "../spec.js";
import { contradictionTools } from "./governance-contradictions.js";
import { statusTools } from "./governance-status.js";
import { validationTools } from "./governance-validate.js";

export const governanceTools: ToolSpec[] = [
  ...validationTools,
  ...statusTools,
  ...contradictionTools,
];
