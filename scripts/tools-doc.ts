/**
 * Generates docs/tools.md from the registry, so the tool reference never drifts from the code.
 * `npm run docs:tools` rewrites it; test/docs/tools-doc.test.ts fails when it is stale.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { allTools } from "../src/tools/registry.js";
import type { ToolSpec } from "../src/tools/spec.js";

export const TOOLS_DOC_PATH = fileURLToPath(new URL("../docs/tools.md", import.meta.url));

function args(spec: ToolSpec): string {
  const required = new Set(spec.inputSchema.required ?? []);
  const names = Object.keys(spec.inputSchema.properties);
  if (names.length === 0) return "—";
  return names.map((n) => (required.has(n) ? `\`${n}\`` : `\`${n}?\``)).join(", ");
}

function flags(spec: ToolSpec): string {
  const out = [spec.readOnly ? "read-only" : "write"];
  if (spec.advanced) out.push("advanced");
  if (spec.destructive) out.push("destructive");
  if (spec.idempotent) out.push("idempotent");
  if (spec.enableKey) out.push(`needs \`${spec.enableKey}\``);
  if (spec.wholeKbPass) out.push("whole-KB pass");
  return out.join(", ");
}

export function renderToolsDoc(): string {
  const specs = [...allTools()];
  const lines = [
    "# Tool reference",
    "",
    "Generated from the registry by `npm run docs:tools`; do not edit by hand.",
    "",
    `${specs.length} tools; the \`agent\` profile (default) lists the ${specs.filter((s) => !s.advanced).length} that are not advanced — advanced tools stay callable.`,
    "On the routed surface every tool also takes `kb` (required when 2+ KBs are bound).",
    "Errors are `isError` results with text `<code>: <message>`; a denial is exactly `forbidden`, and a hidden concept answers exactly `not found`.",
    'A call of a tool marked *whole-KB pass* reads the whole KB (`validate` only without `id`, `concept_list` only with `limit` over 500): it waits for one of the KB\'s 2 pass slots — at most 16 calls wait, 4 per token, 30 s each — else answers `busy: …` (docs/operations.md "Whole-KB passes").',
    "An optional argument sent as `null` counts as left out, as does an empty optional `scope`, `prefix` or `id`; a required `id`, `name`, `path`, `by`, `template`, `entry`, `query` or `since` sent empty is `invalid_argument` (`'<name>' is required: pass a non-empty string`).",
    "",
    "| tool | arguments (`?` = optional) | kind | resource class | what it does |",
    "|---|---|---|---|---|",
  ];
  for (const spec of specs) {
    const description = spec.description.replace(/\|/g, "\\|").replace(/\s+/g, " ");
    lines.push(
      `| \`${spec.name}\` | ${args(spec)} | ${flags(spec)} | ${spec.resource} | ${description} |`,
    );
  }
  return `${lines.join("\n")}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(TOOLS_DOC_PATH, renderToolsDoc());
  process.stderr.write(`wrote ${TOOLS_DOC_PATH}\n`);
}
