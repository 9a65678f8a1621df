/**
 * Merges the YAML `auth:` block with the env/flag overrides into what compileAuth takes
 * (precedence default → YAML → env → flags is the CLI's; it passes the winning raw strings).
 */
import { SettingError } from "../common/errors.js";
import type { AuthConfig, AuthMode, Env, ResolvedAuthInput } from "./config-types.js";
import { expandEnvRefs } from "./env-refs.js";
import { parseTokensEnv } from "./tokens-env.js";

export interface AuthOverrides {
  /** Raw `CARTOGRAPHER_TOKENS` / `--tokens` value; when set it replaces the YAML tokens. */
  tokens?: { value: string; source: string };
  /** Raw `CARTOGRAPHER_AUTH` / flag value. */
  mode?: { value: string; source: string };
  /** Environment for `${NAME}` references in YAML token values. */
  env: Env;
}

/** @throws SettingError from the env parsers or an unset `${NAME}`. */
export function resolveAuthInput(config: AuthConfig, overrides: AuthOverrides): ResolvedAuthInput {
  const mode =
    overrides.mode !== undefined
      ? parseAuthMode(overrides.mode.value, overrides.mode.source)
      : config.mode;
  const tokens =
    overrides.tokens !== undefined
      ? parseTokensEnv(overrides.tokens.value, overrides.tokens.source)
      : config.tokens.map((spec, index) => ({
          ...spec,
          token: expandEnvRefs(spec.token, overrides.env, spec.origin ?? `auth.tokens[${index}]`),
        }));
  return { mode, tokens, roles: config.roles };
}

/**
 * Parses `CARTOGRAPHER_AUTH` / a `--auth` flag: `auto` (or empty), `true`/`1`/`on`, `false`/`0`/`off`.
 * @throws SettingError naming `source` and the accepted values.
 */
export function parseAuthMode(value: string, source = "CARTOGRAPHER_AUTH"): AuthMode {
  const v = value.trim().toLowerCase();
  if (v === "" || v === "auto") return "auto";
  if (v === "true" || v === "1" || v === "on" || v === "yes") return true;
  if (v === "false" || v === "0" || v === "off" || v === "no") return false;
  throw new SettingError(`${source} must be auto, true or false`);
}
