/**
 * KB names keep the case they were written in (the folder name as is, as in Go); a name typed
 * in another case still finds its KB when exactly one mounted KB matches it ignoring case
 * (docs/decisions.md, "KB names keep their case"). Pure.
 */

/** The mounted name `name` designates: itself, else the one case-insensitive match, else null. */
export function resolveKbName(name: string, mounted: readonly string[]): string | null {
  if (mounted.includes(name)) return name;
  const folded = name.toLowerCase();
  const matches = mounted.filter((m) => m.toLowerCase() === folded);
  return matches.length === 1 ? (matches[0] as string) : null;
}
