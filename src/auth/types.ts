/**
 * Principals and policies (D44, D45, D118). Pure data; compiled once at startup, immutable.
 */
import type { Visibility } from "../kb/core/types.js";

export type Access = "r" | "rw";

/** One compiled allow rule for one KB. Empty selector lists mean "any". */
export interface PermissionRule {
  kb: string;
  access: Access;
  maps: readonly string[];
  journals: readonly string[];
  types: readonly string[];
}

export interface Policy {
  /** Admin bypasses every check (a token with neither scopes nor roles). */
  readonly admin: boolean;
  readonly rules: readonly PermissionRule[];
}

export interface Principal {
  /** Configured `id`, else `tok-` + first 8 hex of the token digest; `local-admin` for stdio. */
  readonly id: string;
  readonly policy: Policy;
}

/** Facts about one concept a call touches, gathered by the surface from the store. */
export interface TargetFacts {
  map: string | null;
  journal: string | null;
  /** Current type; null when the concept does not exist yet. */
  type: string | null;
  /** Type the write would set, if any. */
  proposedType?: string | null;
  exists: boolean;
  write: boolean;
}

export type Decision =
  | { allow: true; visibility: Visibility }
  /** `forbidden` renders as exactly `forbidden`; `not_found_hidden` as exactly `not found`. */
  | { allow: false; reason: "forbidden" | "not_found_hidden" };

/** What the surface asks auth/ for one call (built from the ToolSpec and the store). */
export interface AuthRequest {
  kb: string;
  /** `r` for read-only tools, `rw` otherwise (unknown tools count as writes). */
  access: Access;
  /** null = unknown or unclassified tool: denied unless admin (fail closed). */
  resourceClass: import("../tools/spec.js").ResourceClass | null;
  targets: TargetFacts[];
  requireWholeKb: boolean;
}
