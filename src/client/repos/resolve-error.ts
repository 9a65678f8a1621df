/**
 * Why a `{{repo:…}}` / `{{path:…}}` reference did not resolve. The message says what was
 * searched and how to fix it; `reason` is for code (never match the text).
 */
export type ResolveReason = "not_found" | "ambiguous";

export class ResolveError extends Error {
  constructor(
    readonly reason: ResolveReason,
    message: string,
    /** The candidate keys of an ambiguous reference. */
    readonly candidates: readonly string[] = [],
  ) {
    super(message);
    this.name = "ResolveError";
  }
}
