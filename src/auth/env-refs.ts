/**
 * `${NAME}` references in token values, expanded from an environment the CLI passes in, so a
 * config file can be committed without its secrets.
 */
import { SettingError } from "../common/errors.js";
import type { Env } from "./config-types.js";

const REF = /\$\{([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Replaces every `${NAME}` in `value` with `env[NAME]`. Text without references is returned
 * unchanged. `where` names the value in errors (e.g. `auth.tokens[1]`).
 * @throws SettingError when a referenced variable is unset or empty (an empty
 * expansion would silently weaken a token) or a reference is not a valid variable name.
 */
export function expandEnvRefs(value: string, env: Env, where = "value"): string {
  return value.replace(REF, (_match, name: string) => {
    if (!NAME.test(name)) {
      throw new SettingError(`${where}: \${…} must contain an environment variable name`);
    }
    const resolved = env[name];
    if (resolved === undefined || resolved === "") {
      throw new SettingError(
        `${where}: environment variable ${name} is not set (referenced as \${${name}})`,
      );
    }
    return resolved;
  });
}
