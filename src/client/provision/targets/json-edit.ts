/**
 * Format-preserving edits of a JSON or JSONC file (OpenCode's `opencode.json` may hold
 * comments and trailing commas, and users lay it out by hand): only the value at one path is
 * replaced, inserted or removed, through jsonc-parser's `modify`; every other byte — comments,
 * spacing, line breaks, key order, a BOM — stays as it was, as for Codex's TOML
 * (docs/decisions.md, Client). A new file is written as json-file.ts writes one.
 */
import {
  applyEdits,
  type FormattingOptions,
  format,
  modify,
  type ParseError,
  parse,
  printParseErrorCode,
} from "jsonc-parser";
import { ConfigError } from "../../errors.js";
import { detectStyle, serializeJson } from "./json-file.js";

const BOM = "\uFEFF";

/** The top-level object of a JSON/JSONC text (`{}` for none); refuses a syntax error. */
export function parseJsoncObject(text: string | null, file: string): Record<string, unknown> {
  const body = text?.startsWith(BOM) ? text.slice(1) : text;
  if (body === null || body === undefined || body.trim() === "") return {};
  const errors: ParseError[] = [];
  const value: unknown = parse(body, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const first = errors[0] as ParseError;
    throw new ConfigError(
      `${file} is not valid JSON or JSONC (${printParseErrorCode(first.error)} at offset ${first.offset}); fix it by hand, nothing was written`,
    );
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ConfigError(`${file}: the top level must be a JSON object; nothing was written`);
  }
  return value as Record<string, unknown>;
}

function formatting(text: string): FormattingOptions {
  const { indent } = detectStyle(text);
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  return indent.startsWith("\t")
    ? { insertSpaces: false, tabSize: 1, eol }
    : { insertSpaces: true, tabSize: indent.length, eol };
}

/**
 * `text` with each `[path, value]` applied in order (`undefined` removes the key). An empty or
 * absent file becomes the object the edits describe, serialized in json-file.ts's style.
 */
export function editJsonc(
  text: string | null,
  file: string,
  edits: ReadonlyArray<readonly [path: string[], value: unknown]>,
): string {
  const bom = text?.startsWith(BOM) ? BOM : "";
  let body = bom ? (text as string).slice(1) : (text ?? "");
  if (body.trim() === "") {
    const root: Record<string, unknown> = {};
    for (const [at, value] of edits) setIn(root, at, value);
    return `${bom}${serializeJson(root, { ...detectStyle(null), bom: false })}`;
  }
  parseJsoncObject(body, file);
  // A one-line file stays one line; otherwise only the inserted text is laid out.
  const options = body.trim().includes("\n") ? formatting(body) : undefined;
  for (const [at, value] of edits) body = applyOne(body, at, value, options);
  return `${bom}${body}`;
}

/**
 * One edit, unformatted, then only the inserted text formatted: `modify`'s own formatting
 * re-lays-out the neighbouring entries too.
 */
function applyOne(
  text: string,
  at: string[],
  value: unknown,
  options: FormattingOptions | undefined,
): string {
  let out = text;
  const edits = [...modify(text, at, value, {})].sort((a, b) => b.offset - a.offset);
  for (const e of edits) {
    out = out.slice(0, e.offset) + e.content + out.slice(e.offset + e.length);
    if (options && e.content.length > 0) {
      out = applyEdits(out, format(out, { offset: e.offset, length: e.content.length }, options));
    }
  }
  return out;
}

function setIn(root: Record<string, unknown>, at: string[], value: unknown): void {
  let node = root;
  for (const key of at.slice(0, -1)) {
    const next = node[key];
    if (next === null || typeof next !== "object" || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  const last = at[at.length - 1] as string;
  if (value === undefined) delete node[last];
  else node[last] = value;
}
