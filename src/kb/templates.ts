/** Concept templates (`templates/<name>.md`) with `{{identifier}}` variables. Pure. */
import { KbError } from "./errors.js";

const VARIABLE = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** Variable names used by a template, sorted and unique. */
export function templateVariables(text: string): string[] {
  return [...new Set([...text.matchAll(VARIABLE)].map((m) => m[1] as string))].sort();
}

/** Substitutes every variable; the given set must equal the template's set exactly. */
export function renderTemplate(
  name: string,
  text: string,
  variables: Record<string, string>,
): string {
  const wanted = templateVariables(text);
  const given = Object.keys(variables).sort();
  const missing = wanted.filter((v) => !given.includes(v));
  const extra = given.filter((v) => !wanted.includes(v));
  if (missing.length || extra.length) {
    const parts = [];
    if (missing.length) parts.push(`missing: ${missing.join(", ")}`);
    if (extra.length) parts.push(`unknown: ${extra.join(", ")}`);
    throw new KbError(
      "invalid_argument",
      `template "${name}" takes exactly the variables [${wanted.join(", ")}]; ${parts.join("; ")}`,
      { missing, extra, variables: wanted },
    );
  }
  return text.replace(VARIABLE, (_m, v: string) => String(variables[v]));
}
