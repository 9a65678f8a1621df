/**
 * Managed sections in JSON files shared with the user (pure): one named entry in an object
 * (`mcpServers.<entry>` in `.mcp.json`, `mcp.<entry>` in `opencode.json`), or our hook groups
 * inside Claude Code's `settings.json` `hooks`. Everything else in the file — keys, their order,
 * indentation, a BOM — is kept (json-file.ts, the same rules as the MCP entry of connect).
 * An unparsable file throws the ConfigError of `parseJsonObject`; nothing is written then.
 */
import { ConfigError } from "../../errors.js";
import type { ManagedSection, RenderContext } from "../types.js";
import { staleSections } from "./common.js";
import { hasHookMarker } from "./hook-spec.js";
import { editJsonc, parseJsoncObject } from "./json-edit.js";
import { detectStyle, parseJsonObject, serializeJson } from "./json-file.js";
import { canonicalJson } from "./mcp-entry.js";

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function container(root: Obj, key: string, file: string): Obj | undefined {
  const c = root[key];
  if (c === undefined) return undefined;
  if (!isObj(c)) throw new ConfigError(`${file}: "${key}" must be an object; nothing was written`);
  return c;
}

/** `root` with `key` set to `value` in place (or appended), or removed when value is undefined. */
function withKey(root: Obj, key: string, value: unknown): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(root)) {
    if (k !== key) out[k] = v;
    else if (value !== undefined) out[k] = value;
  }
  if (!(key in root) && value !== undefined) out[key] = value;
  return out;
}

/** The entry `entry` of the object `containerKey`: an MCP server entry. */
export function jsonEntrySection(opts: {
  file: string;
  containerKey: string;
  entry: string;
  desired: unknown | null;
  origins: string[];
  /** A JSONC file edited in place (OpenCode's opencode.json; json-edit.ts). */
  jsonc?: boolean;
}): ManagedSection {
  const { file, containerKey, entry } = opts;
  const parseRoot = opts.jsonc ? parseJsoncObject : parseJsonObject;
  return {
    file,
    id: `mcp:${entry}`,
    desired: opts.desired === null ? null : canonicalJson(opts.desired),
    origins: opts.origins,
    read(text) {
      const c = container(parseRoot(text, file), containerKey, file);
      return c && entry in c ? canonicalJson(c[entry]) : null;
    },
    write(text, section) {
      const root = parseRoot(text, file);
      const c = container(root, containerKey, file);
      if (section === null && (c === undefined || !(entry in c))) return text ?? "";
      const value = section === null ? undefined : JSON.parse(section);
      const next = withKey(c ?? {}, entry, value);
      // A container we emptied goes (we made it, or it held only ours).
      const keep = Object.keys(next).length > 0 ? next : undefined;
      if (opts.jsonc) {
        const edit: [string[], unknown] =
          keep === undefined ? [[containerKey], undefined] : [[containerKey, entry], value];
        return editJsonc(text, file, [edit]);
      }
      return serializeJson(withKey(root, containerKey, keep), detectStyle(text));
    },
  };
}

/**
 * The `mcpServers` entries of `file`: one section per rendered entry, plus an empty one for
 * each entry the lockfile says we own there and nothing renders now (so the engine prunes it).
 */
export function mcpServersSections(
  file: string,
  rendered: ReadonlyArray<{ entry: string; desired: unknown; origin: string }>,
  owned: RenderContext["ownedSections"],
): ManagedSection[] {
  const section = (entry: string, desired: unknown | null, origins: string[]) =>
    jsonEntrySection({ file, containerKey: "mcpServers", entry, desired, origins });
  const sections = rendered.map((r) => section(r.entry, r.desired, [r.origin]));
  return [...sections, ...staleSections(owned, file, sections, (e) => section(e, null, []))];
}

export interface HookGroup {
  matcher?: string;
  hooks: { type: string; command: string; timeout?: number }[];
}

/**
 * Our hook groups in Claude Code's `settings.json`: `hooks.<Event>[]` entries whose every
 * command starts with `ownPrefix` (the quoted path of our managed hook folder) or ends with our
 * marker comment (hook-spec.ts `hookMarker`, for a line that does not run a script of ours).
 * Claude Code validates its settings, so no marker key is added. `desired` maps event → groups;
 * `read` returns ours in the same canonical form (events sorted, groups in file order).
 */
export function claudeHooksSection(opts: {
  file: string;
  ownPrefix: string;
  /** The tool folder named in our marker comment (`.claude`). */
  ownMarkerTool: string;
  desired: Record<string, HookGroup[]> | null;
  origins: string[];
}): ManagedSection {
  const { file, ownPrefix, ownMarkerTool } = opts;
  const ourCommand = (c: unknown): boolean =>
    typeof c === "string" && (c.startsWith(ownPrefix) || hasHookMarker(ownMarkerTool, c));
  const ours = (g: unknown): boolean =>
    isObj(g) &&
    Array.isArray(g.hooks) &&
    g.hooks.length > 0 &&
    g.hooks.every((h) => isObj(h) && ourCommand(h.command));
  const hooksOf = (root: Obj): Obj | undefined => container(root, "hooks", file);
  return {
    file,
    id: "hooks",
    desired: opts.desired === null ? null : canonicalJson(opts.desired),
    origins: opts.origins,
    read(text) {
      const hooks = hooksOf(parseJsonObject(text, file));
      if (!hooks) return null;
      const found: Record<string, unknown[]> = {};
      for (const event of Object.keys(hooks).sort()) {
        const list = hooks[event];
        if (!Array.isArray(list)) continue;
        const mine = list.filter(ours);
        if (mine.length > 0) found[event] = mine;
      }
      return Object.keys(found).length > 0 ? canonicalJson(found) : null;
    },
    write(text, section) {
      const root = parseJsonObject(text, file);
      const hooks = hooksOf(root) ?? {};
      const wanted = section === null ? {} : (JSON.parse(section) as Record<string, unknown[]>);
      let next: Obj = {};
      let changed = false;
      for (const [event, list] of Object.entries(hooks)) {
        if (!Array.isArray(list)) {
          next[event] = list;
          continue;
        }
        const kept = list.filter((g) => !ours(g));
        changed ||= kept.length !== list.length;
        const add = wanted[event] ?? [];
        if (kept.length + add.length > 0 || kept.length === list.length)
          next[event] = [...kept, ...add];
      }
      for (const [event, add] of Object.entries(wanted)) {
        if (!(event in next)) next = { ...next, [event]: add };
      }
      if (!changed && section === null) return text ?? "";
      // A `hooks` object we emptied goes; one that was already empty is the user's and stays.
      const before = hooksOf(root);
      const wasEmpty = before !== undefined && Object.keys(before).length === 0;
      const hooksValue = Object.keys(next).length > 0 || wasEmpty ? next : undefined;
      return serializeJson(withKey(root, "hooks", hooksValue), detectStyle(text));
    },
  };
}
