/**
 * The one owner of HTML escaping in the console (docs/decisions.md "Console: one escaping owner").
 * Every page is built with the `html` tagged template: each interpolated value is escaped unless
 * it is a `Safe` (HTML this module or the sanitizer produced). Nothing else in src/console writes
 * `&lt;` by hand or concatenates markup with data.
 *
 *   html`<a href="${url}">${title}</a>`   strings and numbers escaped (quotes too: attributes are safe)
 *   html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>`   arrays joined, each item rendered
 *   raw(sanitized)                         only for already-sanitized HTML (render/markdown.ts)
 *
 * null, undefined and false render as nothing, so `${cond && html`…`}` works.
 */

/** HTML that is already safe to emit as is. Build it only through `html` or `raw`. */
export class Safe {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type HtmlValue = Safe | string | number | boolean | null | undefined | readonly HtmlValue[];

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

/** `text` with `& < > " ' \`` as entities: safe in element content and in a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c] as string);
}

/** The escaped form of an attribute value (the same rule; the value must sit in quotes). */
export function attr(value: string | number): string {
  return escapeHtml(String(value));
}

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false || value === true) return "";
  if (value instanceof Safe) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
}

/** The tagged template: literal parts as written, every interpolation escaped (see header). */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Safe {
  let out = strings[0] as string;
  for (let i = 0; i < values.length; i++) out += render(values[i] as HtmlValue) + strings[i + 1];
  return new Safe(out);
}

/** Marks `sanitized` as safe. Only for HTML that went through the sanitizer (render/markdown.ts). */
export function raw(sanitized: string): Safe {
  return new Safe(sanitized);
}
