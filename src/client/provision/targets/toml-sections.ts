/**
 * Managed sections in Codex's `config.toml` (pure), edited as text so every other byte —
 * comments, the user's tables, the cartographer entry — survives, then parsed back with
 * smol-toml to validate (the rule of codex-entry.ts):
 * - an MCP server table `[mcp_servers.<entry>]` (toml-tables.ts, the same editor connect uses);
 * - one block between `# BEGIN cartographer:<server> <what>` and `# END …` comment lines, for
 *   content that is not one table (hooks are arrays of tables, `[[hooks.<Event>]]`).
 */
import { parse as parseToml } from "smol-toml";
import { ConfigError } from "../../errors.js";
import type { ManagedSection } from "../types.js";
import { canonicalJson } from "./mcp-entry.js";
import { removeTomlTables, tomlKey, tomlString, upsertTomlTable } from "./toml-tables.js";

function parse(text: string | null, file: string): Record<string, unknown> {
  if (text === null || text.trim() === "") return {};
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch (err) {
    throw new ConfigError(
      `${file} is not valid TOML (${(err as Error).message}); nothing was written`,
    );
  }
}

/** A TOML value for the scalars, string lists and string maps an MCP entry holds. */
function tomlValue(v: unknown): string {
  if (typeof v === "string") return tomlString(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return `[${v.map(tomlValue).join(", ")}]`;
  if (v !== null && typeof v === "object") {
    const parts = Object.entries(v as Record<string, unknown>).map(
      ([k, x]) => `${tomlKey(k)} = ${tomlValue(x)}`,
    );
    return `{ ${parts.join(", ")} }`;
  }
  throw new Error(`no TOML form for ${typeof v}`);
}

/** `[mcp_servers.<entry>]` with `desired`'s keys; read/compare through the parsed table. */
export function codexMcpSection(opts: {
  file: string;
  entry: string;
  desired: Record<string, unknown> | null;
  origins: string[];
}): ManagedSection {
  const { file, entry } = opts;
  const table = (text: string | null): unknown => {
    const servers = parse(text, file).mcp_servers;
    return servers !== null && typeof servers === "object"
      ? (servers as Record<string, unknown>)[entry]
      : undefined;
  };
  return {
    file,
    id: `mcp:${entry}`,
    desired: opts.desired === null ? null : canonicalJson(opts.desired),
    origins: opts.origins,
    read(text) {
      const t = table(text);
      return t === undefined ? null : canonicalJson(t);
    },
    write(text, section) {
      parse(text, file); // refuse to edit a file that does not parse
      let out: string;
      if (section === null) {
        if (table(text) === undefined) return text ?? "";
        out = removeTomlTables(text ?? "", "mcp_servers", entry);
      } else {
        const value = JSON.parse(section) as Record<string, unknown>;
        const body = [
          `[mcp_servers.${tomlKey(entry)}]`,
          ...Object.entries(value).map(([k, v]) => `${tomlKey(k)} = ${tomlValue(v)}`),
        ].join("\n");
        out = upsertTomlTable(text ?? "", "mcp_servers", entry, body);
      }
      let after: unknown;
      try {
        after = table(out);
      } catch {
        throw new ConfigError(
          `${file}: mcp_servers.${entry} could not be edited safely; edit it by hand`,
        );
      }
      if (
        (section === null) !== (after === undefined) ||
        (section !== null && canonicalJson(after) !== section)
      ) {
        throw new ConfigError(
          `${file}: mcp_servers.${entry} is not written as a [mcp_servers.${entry}] table, so it cannot be edited safely; edit it by hand`,
        );
      }
      return out;
    },
  };
}

/**
 * A block of lines between marker comments. `desired` is the block's body (without markers,
 * ending in a newline); `read` returns the body found, `write` replaces the block in place or
 * appends it after a blank line, and removing it also removes the blank line before it.
 */
export function markerBlockSection(opts: {
  file: string;
  id: string;
  begin: string;
  end: string;
  desired: string | null;
  origins: string[];
  /** Parses the whole file (throws ConfigError when the result is not valid). */
  validate: (text: string) => void;
}): ManagedSection {
  const { file, begin, end } = opts;
  const find = (text: string): { start: number; stop: number; body: string } | null => {
    const lines = text.split("\n");
    const start = lines.findIndex((l) => l.trim() === begin);
    if (start < 0) return null;
    const rel = lines.slice(start + 1).findIndex((l) => l.trim() === end);
    if (rel < 0) {
      throw new ConfigError(
        `${file}: "${begin}" has no "${end}" line; fix or remove the block by hand`,
      );
    }
    const stop = start + 1 + rel;
    const inner = lines.slice(start + 1, stop);
    return { start, stop, body: inner.length === 0 ? "" : `${inner.join("\n")}\n` };
  };
  return {
    file,
    id: opts.id,
    desired: opts.desired,
    origins: opts.origins,
    read(text) {
      if (text === null) return null;
      opts.validate(text);
      return find(text)?.body ?? null;
    },
    write(text, section) {
      const current = text ?? "";
      if (current.trim() !== "") opts.validate(current);
      const found = find(current);
      const lines = current === "" ? [] : current.split("\n");
      let out: string;
      if (found) {
        let from = found.start;
        if (section === null && from > 0 && (lines[from - 1] ?? "").trim() === "") from--;
        const block =
          section === null ? [] : [begin, ...section.replace(/\n$/, "").split("\n"), end];
        out = [...lines.slice(0, from), ...block, ...lines.slice(found.stop + 1)].join("\n");
      } else if (section === null) {
        return current;
      } else {
        const block = `${begin}\n${section}${section.endsWith("\n") ? "" : "\n"}${end}\n`;
        out = current === "" ? block : `${current}${current.endsWith("\n") ? "" : "\n"}\n${block}`;
      }
      opts.validate(out);
      return out;
    },
  };
}

/** Throws ConfigError when `text` is not valid TOML (the validation of a Codex block). */
export function validateToml(file: string): (text: string) => void {
  return (text) => {
    parse(text, file);
  };
}
