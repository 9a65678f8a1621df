/**
 * Our hook registrations in Codex's `config.toml` (pure): `[[hooks.<Event>]]` +
 * `[[hooks.<Event>.hooks]]` tables written in one marked block (`markerBlockSection`), but owned
 * by identity, not by the markers. Codex re-serializes config.toml when it saves its own state
 * (the trusted-hook hashes `[hooks.state."…"]`, `[projects.*]`) and drops every comment, our
 * markers with them (Go's D99, docs/decisions.md): a marker-only owner would then append a second
 * block and every hook would run twice. So:
 * - `read` parses the file and returns the groups whose every command is ours — it starts with our
 *   hook folder's path or ends with our marker comment (hook-spec.ts) — wherever they are, in
 *   canonical JSON (events sorted, groups in file order); a rewrite that kept them reads in sync;
 * - `write` first removes those groups wherever they stand outside our block (Codex's marker-less
 *   copies), then sets the block. `[hooks.state…]` tables are Codex's bookkeeping and stay.
 */
import { parse as parseToml } from "smol-toml";
import type { ManagedSection } from "../types.js";
import { hasHookMarker } from "./hook-spec.js";
import { canonicalJson } from "./mcp-entry.js";
import { markerBlockSection, validateToml } from "./toml-sections.js";
import { tomlString } from "./toml-tables.js";

export interface CodexHookGroup {
  matcher?: string;
  hooks: { type: "command"; command: string; timeout?: number }[];
}

type Groups = Record<string, CodexHookGroup[]>;

/** The TOML body of our block for `groups` (events sorted, groups in order). */
export function codexHooksBlock(groups: Groups): string {
  const lines: string[] = [];
  for (const event of Object.keys(groups).sort()) {
    for (const g of groups[event] ?? []) {
      lines.push(`[[hooks.${event}]]`);
      if (g.matcher) lines.push(`matcher = ${tomlString(g.matcher)}`);
      for (const h of g.hooks) {
        lines.push(`[[hooks.${event}.hooks]]`, `type = "command"`);
        lines.push(`command = ${tomlString(h.command)}`);
        if (h.timeout) lines.push(`timeout = ${h.timeout}`);
      }
    }
  }
  return `${lines.join("\n")}\n`;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

// A table header line: `[a.b]` or `[[a.b]]`, an optional comment after it.
const HEADER = /^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$/;

export function codexHooksSection(opts: {
  file: string;
  begin: string;
  end: string;
  /** Our hook folder as a shell word, with its trailing `/`. */
  ownPrefix: string;
  desired: Groups | null;
  origins: string[];
}): ManagedSection {
  const { file, begin, end, ownPrefix } = opts;
  const validate = validateToml(file);
  const ours = (g: unknown): boolean =>
    isObj(g) &&
    Array.isArray(g.hooks) &&
    g.hooks.length > 0 &&
    g.hooks.every(
      (h) =>
        isObj(h) &&
        typeof h.command === "string" &&
        (h.command.startsWith(ownPrefix) || hasHookMarker(".codex", h.command)),
    );
  const block = (body: string | null) =>
    markerBlockSection({ file, id: "hooks", begin, end, desired: body, origins: [], validate });

  /** `text` without our groups that stand outside our block, every other line kept. */
  const withoutCopies = (text: string): string => {
    const lines = text.split("\n");
    const inBlock = new Array<boolean>(lines.length).fill(false);
    const start = lines.findIndex((l) => l.trim() === begin);
    if (start >= 0) {
      for (let i = start; i < lines.length; i++) {
        inBlock[i] = true;
        if (i > start && (lines[i] ?? "").trim() === end) break;
      }
    }
    const drop = new Set<number>();
    for (let i = 0; i < lines.length; i++) {
      const h = HEADER.exec(lines[i] ?? "");
      if (h?.[1] !== "[[" || inBlock[i]) continue;
      const key = (h[2] ?? "").replace(/\s+/g, "");
      if (!/^hooks\.[A-Za-z]+$/.test(key)) continue;
      // The group: this header and what follows up to the next header not under `key.`.
      let stop = i + 1;
      while (stop < lines.length && !inBlock[stop]) {
        const next = HEADER.exec(lines[stop] ?? "");
        if (next && !(next[2] ?? "").replace(/\s+/g, "").startsWith(`${key}.`)) break;
        stop++;
      }
      let parsed: unknown;
      try {
        parsed = parseToml(lines.slice(i, stop).join("\n"));
      } catch {
        continue;
      }
      const event = key.slice("hooks.".length);
      const list = isObj(parsed) && isObj(parsed.hooks) ? parsed.hooks[event] : undefined;
      if (Array.isArray(list) && list.length === 1 && ours(list[0])) {
        for (let j = i; j < stop; j++) drop.add(j);
      }
      i = stop - 1;
    }
    return drop.size === 0 ? text : lines.filter((_, j) => !drop.has(j)).join("\n");
  };

  return {
    file,
    id: "hooks",
    desired: opts.desired === null ? null : canonicalJson(opts.desired),
    origins: opts.origins,
    read(text) {
      if (text === null) return null;
      validate(text);
      const doc = text.trim() === "" ? {} : (parseToml(text) as Record<string, unknown>);
      const hooks = doc.hooks;
      if (!isObj(hooks)) return null;
      const found: Record<string, unknown[]> = {};
      for (const event of Object.keys(hooks).sort()) {
        const list = hooks[event];
        if (event === "state" || !Array.isArray(list)) continue;
        const mine = list.filter(ours);
        if (mine.length > 0) found[event] = mine;
      }
      return Object.keys(found).length > 0 ? canonicalJson(found) : null;
    },
    write(text, section) {
      if (text !== null && text.trim() !== "") validate(text);
      const cleaned = text === null ? null : withoutCopies(text);
      const body = section === null ? null : codexHooksBlock(JSON.parse(section) as Groups);
      return block(body).write(cleaned, body);
    },
  };
}
