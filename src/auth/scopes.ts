/**
 * The `kb:<name>:r|rw` scope strings of D44 (YAML `scopes`, the env/flag token form and the
 * `scopes_supported` list of the protected-resource metadata). One owner for their syntax.
 */
import type { Access } from "./types.js";

export interface Scope {
  kb: string;
  access: Access;
}

/** A KB name as it may appear in a scope or a rule: no whitespace and none of `: ; , |`. */
const KB_NAME = /^[^\s:;,|]+$/;

export function isScopeKbName(name: string): boolean {
  return KB_NAME.test(name);
}

/** Parses `kb:<name>:r` / `kb:<name>:rw`; null when malformed (callers name the position). */
export function parseScope(text: string): Scope | null {
  const trimmed = text.trim();
  if (!trimmed.startsWith("kb:")) return null;
  const last = trimmed.lastIndexOf(":");
  if (last <= 2) return null;
  const kb = trimmed.slice(3, last);
  const access = trimmed.slice(last + 1);
  if (!isScopeKbName(kb)) return null;
  if (access !== "r" && access !== "rw") return null;
  return { kb, access };
}

export function formatScope(scope: Scope): string {
  return `kb:${scope.kb}:${scope.access}`;
}

/** Every scope a server with these KBs understands: `kb:<name>:r`, `kb:<name>:rw` per KB. */
export function scopesSupported(kbNames: string[]): string[] {
  return kbNames.flatMap((kb) => [
    formatScope({ kb, access: "r" }),
    formatScope({ kb, access: "rw" }),
  ]);
}
