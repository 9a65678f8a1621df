/** A concept's frontmatter as a two-column table; every value escaped (lists and maps as text). */
import { html, type Safe } from "../html.js";

/** The note shown for an empty list or table. */
export const NONE: Safe = html`<p class="hint">None.</p>`;

export function frontmatterTable(frontmatter: Record<string, unknown>): Safe {
  const entries = Object.entries(frontmatter);
  if (entries.length === 0) return NONE;
  return html`<table class="frontmatter">
<caption class="visually-hidden">Frontmatter fields</caption>
<thead><tr><th scope="col">Field</th><th scope="col">Value</th></tr></thead>
<tbody>${entries.map(([key, value]) => html`<tr><th scope="row">${key}</th><td>${valueText(value)}</td></tr>`)}</tbody>
</table>`;
}

function valueText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return value.map(valueText).join(", ");
  return JSON.stringify(value);
}
