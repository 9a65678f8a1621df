/** Concept templates (`templates/<name>.md`) with `{{identifier}}` variables. Pure. */
import { KbError } from "../../common/errors.js";
import { formatScalar, plainScalar } from "./yaml-scalar.js";

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
  const sub = (t: string) => t.replace(VARIABLE, (_m, v: string) => String(variables[v]));
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const close =
    lines[0]?.trimEnd() === "---" ? lines.findIndex((l, i) => i > 0 && l.trimEnd() === "---") : -1;
  return lines
    .map((line, i) => (i > 0 && i < close ? renderFrontmatterLine(line, sub) : sub(line)))
    .join("\n");
}

const FM_LINE = /^([A-Za-z0-9_][A-Za-z0-9_.-]*[ \t]*:[ \t]+)(.*)$/;

/**
 * A `key: value` line whose plain value holds variables: a rendered value that would not read
 * back as the same text (`a #b` loses its comment, `x: y\nz` breaks the block, `[x]` becomes a
 * list) is quoted; one that reads as a number or boolean (`port: {{port}}`) stays typed.
 */
function renderFrontmatterLine(line: string, sub: (t: string) => string): string {
  const m = FM_LINE.exec(line);
  const value = m?.[2] ?? "";
  if (!m || value.search(VARIABLE) < 0 || /^["'[]|(^|\s)#/.test(value)) return sub(line);
  const rendered = sub(value).trim();
  const reread = plainScalar(rendered);
  const keep = typeof reread !== "string" && reread !== null && !/\n/.test(rendered);
  return `${m[1]}${keep ? rendered : formatScalar(rendered)}`;
}
