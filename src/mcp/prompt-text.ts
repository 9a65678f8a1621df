/**
 * The text of a skill prompt: SKILL.md without its frontmatter, `{{name}}` placeholders filled
 * with the arguments, then the arguments no placeholder used (the user's `request`), then on a
 * routed endpoint which KB to pass as `kb`. Pure.
 */
import { parseDocument } from "../kb/core/frontmatter.js";

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_-]+)\s*\}\}/g;

export function renderPrompt(
  skillText: string,
  args: Readonly<Record<string, string>>,
  kb: string | null,
): string {
  let body = skillText;
  try {
    body = parseDocument(skillText).body;
  } catch {
    body = skillText;
  }
  const used = new Set<string>();
  body = body.replace(PLACEHOLDER, (whole, name: string) => {
    const value = args[name];
    if (value === undefined) return whole;
    used.add(name);
    return value;
  });
  const rest = Object.entries(args).filter(
    ([name, value]) => name !== "kb" && !used.has(name) && value !== "",
  );
  const parts = [body.replace(/\s+$/, "")];
  if (kb !== null) parts.push(`Work in KB '${kb}': pass kb: "${kb}" to every tool call.`);
  for (const [name, value] of rest)
    parts.push(name === "request" ? `Request: ${value}` : `${name}: ${value}`);
  return `${parts.join("\n\n")}\n`;
}
