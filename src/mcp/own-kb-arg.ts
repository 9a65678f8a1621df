/**
 * The `kb` argument on a one-KB surface (a per-KB HTTP endpoint, stdio with one KB). Go's skills
 * pass `kb` to every tool (`atlas_overview {kb}`), so it is accepted everywhere; here it must
 * name the KB served, in any case (kb/kb-name.ts), and is dropped before the tool's own
 * argument check. Any other value is an error naming both KBs: a skill pointed at the wrong
 * endpoint must not read or write the wrong KB (docs/decisions.md, "`kb` on a one-KB surface").
 * Pure.
 */
import { resolveKbName } from "../kb/core/kb-name.js";

export type OwnKbArgs = { ok: true; args: unknown } | { ok: false; message: string };

export function withoutOwnKb(args: unknown, served: string): OwnKbArgs {
  if (typeof args !== "object" || args === null || Array.isArray(args) || !("kb" in args))
    return { ok: true, args };
  const { kb, ...rest } = args as Record<string, unknown>;
  if (kb === undefined || kb === null) return { ok: true, args: rest };
  if (typeof kb === "string" && resolveKbName(kb, [served]) === served)
    return { ok: true, args: rest };
  return {
    ok: false,
    message: `invalid_argument: 'kb' is ${JSON.stringify(kb)} but this endpoint serves only KB '${served}': drop kb, or connect to /mcp/routed (or /mcp/<name>) to reach another KB`,
  };
}
