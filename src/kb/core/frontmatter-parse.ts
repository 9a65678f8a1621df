/**
 * Parser of the flat YAML frontmatter subset (scalars, quoted scalars, flow lists `[a, b]`,
 * block lists `- a`, comments; a blank first line after `---` is tolerated). Pure.
 * Keeps each key's raw lines and the comments before it so serialization can preserve them.
 */
import { KbError } from "../../common/errors.js";
import type { FmScalar, FmValue } from "./types.js";
import { plainScalar, readDoubleQuoted, readSingleQuoted } from "./yaml-scalar.js";

export interface FmEntry {
  key: string;
  value: FmValue;
  /** The key's own lines (`key: value` and any block-list items). */
  raw: string[];
  /** Comment and blank lines directly above the key. */
  leading: string[];
}

export interface FmBlock {
  entries: FmEntry[];
  /** Comment/blank lines after the last key. */
  trailing: string[];
}

const KEY_LINE = /^([A-Za-z0-9_][A-Za-z0-9_.-]*)[ \t]*:(?:[ \t]+(.*))?[ \t]*$/;
const LIST_ITEM = /^[ \t]*-(?:[ \t]+(.*))?[ \t]*$/;

function fail(line: number, message: string): KbError {
  return new KbError("invalid_frontmatter", `frontmatter line ${line}: ${message}`, { line });
}

function afterValue(rest: string, line: number): void {
  const r = rest.trim();
  if (r !== "" && !r.startsWith("#"))
    throw fail(line, `unexpected text after a quoted value: "${r}"`);
}

/** One scalar token: quoted or plain (a plain scalar's ` #comment` is dropped). */
function scalarToken(text: string, line: number): FmScalar {
  const t = text.trim();
  if (t.startsWith('"') || t.startsWith("'")) {
    const q = t.startsWith('"') ? readDoubleQuoted(t) : readSingleQuoted(t);
    if (!q) throw fail(line, `unterminated quoted value: ${t}`);
    afterValue(t.slice(q.length), line);
    return q.value;
  }
  if (t.startsWith("{") || t.startsWith("&") || t.startsWith("*") || t.startsWith("!")) {
    throw fail(
      line,
      `unsupported YAML construct "${t[0]}": frontmatter is flat (scalars and lists)`,
    );
  }
  return plainScalar(t.replace(/(^|[ \t])#.*$/, ""));
}

function flowList(text: string, line: number): FmScalar[] {
  const items: FmScalar[] = [];
  let i = 1;
  let current = "";
  const push = () => {
    if (current.trim() !== "") items.push(scalarToken(current, line));
    current = "";
  };
  for (; i < text.length; i++) {
    const c = text[i] as string;
    if ((c === '"' || c === "'") && current.trim() === "") {
      const q = c === '"' ? readDoubleQuoted(text.slice(i)) : readSingleQuoted(text.slice(i));
      if (!q) throw fail(line, "unterminated quoted list item");
      items.push(q.value);
      i += q.length - 1;
      current = "";
      // Skip to the next separator.
      while (i + 1 < text.length && /[ \t]/.test(text[i + 1] as string)) i++;
      const next = text[i + 1];
      if (next !== "," && next !== "]")
        throw fail(line, "expected , or ] after a quoted list item");
      if (next === ",") i++;
      continue;
    }
    if (c === "[" || c === "{") throw fail(line, "nested lists or maps are not supported");
    if (c === ",") push();
    else if (c === "]") {
      push();
      afterValue(text.slice(i + 1), line);
      return items;
    } else current += c;
  }
  throw fail(line, `flow list is not closed with ]: ${text}`);
}

/** Parses the lines between the `---` delimiters. `firstLine` is the file line of lines[0]. */
export function parseFrontmatterLines(lines: string[], firstLine: number): FmBlock {
  const entries: FmEntry[] = [];
  const seen = new Set<string>();
  let pending: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] as string;
    const lineNo = firstLine + i;
    const trimmed = text.trim();
    if (trimmed === "" || trimmed.startsWith("#")) {
      pending.push(text);
      continue;
    }
    const m = KEY_LINE.exec(text);
    if (!m) {
      if (/^[ \t]/.test(text))
        throw fail(lineNo, `unexpected indented line "${trimmed}": frontmatter is flat`);
      throw fail(lineNo, `expected "key: value", got "${trimmed}"`);
    }
    const key = m[1] as string;
    if (seen.has(key)) throw fail(lineNo, `duplicate key "${key}"`);
    seen.add(key);
    const rawValue = (m[2] ?? "").trim();
    const raw = [text];
    let value: FmValue;
    if (rawValue === "" || rawValue.startsWith("#")) {
      const items: FmScalar[] = [];
      while (i + 1 < lines.length) {
        const next = lines[i + 1] as string;
        const item = LIST_ITEM.exec(next);
        if (!item) break;
        items.push(scalarToken(item[1] ?? "", firstLine + i + 1));
        raw.push(next);
        i++;
      }
      value = raw.length > 1 ? items : null;
    } else if (rawValue.startsWith("[")) {
      value = flowList(rawValue, lineNo);
    } else if (rawValue === "|" || rawValue === ">" || /^[|>][-+]?$/.test(rawValue)) {
      throw fail(lineNo, `block scalars (${rawValue}) are not supported: use a quoted string`);
    } else {
      value = scalarToken(rawValue, lineNo);
    }
    entries.push({ key, value, raw, leading: pending });
    pending = [];
  }
  return { entries, trailing: pending };
}
