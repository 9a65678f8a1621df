/**
 * The Go implementation's `serve` flags that have an environment twin here (issue 14):
 * `--git-sync[=bool]`, `--git-autocommit[=bool]` and `--ollama <url>`. Each is validated under
 * its own flag name, then stands in for its variable, so the precedence stays flags > env > YAML
 * and one resolver owns each setting (sync-keys.ts, resolve.ts, embeddings-keys.ts).
 */
import { parseBoolean } from "./values.js";

export interface GoServeFlags {
  /** `true` when given bare (`--git-sync`), else the text after `=`. */
  gitSync?: string | boolean;
  gitAutocommit?: string | boolean;
  ollama?: string;
}

/** The variable behind `git.autocommit` (resolve.ts reads it; `--git-autocommit` sets it). */
export const GIT_AUTOCOMMIT_VAR = "CARTOGRAPHER_GIT_AUTOCOMMIT";

const BOOLEAN_FLAGS = [
  ["gitSync", "--git-sync", "CARTOGRAPHER_GIT_SYNC"],
  ["gitAutocommit", "--git-autocommit", GIT_AUTOCOMMIT_VAR],
] as const;

/** `env` with every given Go flag applied over its variable; `env` itself is not changed. */
export function applyGoFlags(
  flags: GoServeFlags,
  env: Record<string, string | undefined>,
): Record<string, string | undefined> {
  const out = { ...env };
  for (const [field, flag, variable] of BOOLEAN_FLAGS) {
    const value = flags[field];
    if (value === undefined) continue;
    out[variable] = String(
      value === true ? true : parseBoolean(value === false ? "false" : value, flag),
    );
  }
  if (flags.ollama !== undefined) out.CARTOGRAPHER_OLLAMA = flags.ollama;
  return out;
}
