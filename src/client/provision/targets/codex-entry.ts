import path from "node:path";
import { parse as parseToml } from "smol-toml";
import { codexHome } from "../../codex-trust.js";
import { ConfigError } from "../../errors.js";
import type { EntrySpec } from "../../topology.js";
import type { AuthRef, ProviderAdapter } from "./provider.js";
import { removeTomlTables, tomlKey, tomlString, upsertTomlTable } from "./toml-tables.js";

/**
 * Codex CLI, the cartographer entry. User scope: `$CODEX_HOME/config.toml` (default `~/.codex/`); project scope:
 * `.codex/config.toml` (read only in a trusted project, see codex-trust.ts). A Streamable HTTP server is `[mcp_servers.<name>]` with `url` and
 * `bearer_token_env_var` (Codex reads the token from that variable; an inline token is not
 * accepted). Instructions: `$CODEX_HOME/AGENTS.md` or the project's `AGENTS.md`. Checked against
 * the Codex MCP docs. Edits are textual so the rest of the file survives byte for byte.
 */
const TABLE = "mcp_servers";
/** The keys of an entry this client writes; every other key of a remote entry is the user's. */
const OWNED_KEYS = ["url", "bearer_token_env_var"];

function servers(text: string | null, file: string): Record<string, Record<string, unknown>> {
  if (text === null || text.trim() === "") return {};
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (err) {
    throw new ConfigError(
      `${file} is not valid TOML (${(err as Error).message}); nothing was written`,
    );
  }
  const table = doc[TABLE];
  if (table === undefined) return {};
  if (table === null || typeof table !== "object" || Array.isArray(table)) {
    throw new ConfigError(`${file}: ${TABLE} must be a table; nothing was written`);
  }
  return table as Record<string, Record<string, unknown>>;
}

function render(entry: EntrySpec, auth: AuthRef): string {
  const lines = [`[${TABLE}.${tomlKey(entry.name)}]`, `url = ${tomlString(entry.url)}`];
  if (auth.tokenEnv) lines.push(`bearer_token_env_var = ${tomlString(auth.tokenEnv)}`);
  return lines.join("\n");
}

function matches(actual: Record<string, unknown> | undefined, entry: EntrySpec, auth: AuthRef) {
  if (!actual || actual.url !== entry.url) return false;
  // Without a token_env the entry must carry none either: ours would stay behind otherwise.
  return actual.bearer_token_env_var === auth.tokenEnv;
}

/** Codex's connect side (the record is targets/codex.ts). */
export const codexEntry: ProviderAdapter = {
  id: "codex",
  label: "Codex CLI",
  referencesEnv: true,
  paths(scope, home, cwd, env = {}) {
    // Codex reads its user files from $CODEX_HOME when set (checked with codex-cli 0.171.0:
    // ~/.codex/config.toml is then not read at all).
    const userDir = codexHome(home, env);
    return scope === "user"
      ? {
          config: path.join(userDir, "config.toml"),
          instructions: path.join(userDir, "AGENTS.md"),
        }
      : {
          config: path.join(cwd, ".codex", "config.toml"),
          instructions: path.join(cwd, "AGENTS.md"),
        };
  },
  listEntries(text, file) {
    const out = new Map<string, string | undefined>();
    for (const [name, value] of Object.entries(servers(text, file))) {
      out.set(name, typeof value?.url === "string" ? value.url : undefined);
    }
    return out;
  },
  applyEntries(text, file, remove, add, auth) {
    const before = servers(text, file); // refuse to edit a file that does not parse
    let out = text ?? "";
    const adding = new Set(add.map((e) => e.name));
    for (const name of remove) if (!adding.has(name)) out = removeTomlTables(out, TABLE, name);
    for (const entry of add) {
      // A remote entry of that name keeps the user's own settings (timeouts, tool approvals);
      // a local (command) one is replaced whole, since url + command is no valid entry.
      const remote = typeof before[entry.name]?.url === "string";
      out = upsertTomlTable(
        out,
        TABLE,
        entry.name,
        render(entry, auth),
        remote ? { ownedKeys: OWNED_KEYS } : undefined,
      );
    }
    // Parse back: an entry defined some other way (inline table, dotted keys) would make the
    // textual edit wrong, and that must fail loudly rather than write a broken file.
    let written: Record<string, Record<string, unknown>>;
    try {
      written = servers(out, file);
    } catch {
      throw new ConfigError(
        `${file}: ${TABLE} is not written as [${TABLE}.<name>] tables, so it cannot be edited safely; edit it by hand`,
      );
    }
    for (const name of remove) {
      if (!adding.has(name) && written[name] !== undefined) {
        throw new ConfigError(
          `${file}: could not remove ${TABLE}.${name} (not a [${TABLE}.${name}] table); edit it by hand`,
        );
      }
    }
    for (const entry of add) {
      if (!matches(written[entry.name], entry, auth)) {
        throw new ConfigError(
          `${file}: could not write ${TABLE}.${entry.name} safely; edit it by hand`,
        );
      }
    }
    return out;
  },
  entryMatches(text, file, entry, auth) {
    return matches(servers(text, file)[entry.name], entry, auth);
  },
  fileMode() {
    return undefined;
  },
};
