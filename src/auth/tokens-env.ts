/**
 * The env/flag token form of D44: `tok|kb:a:rw;kb:b:r,tok2` (CARTOGRAPHER_TOKENS, --tokens).
 * Entries are comma-separated; `|` introduces `;`-separated scopes; an entry without `|` is an
 * admin token. Errors name the entry and scope positions only: the string holds secrets, so no
 * part of it is ever echoed.
 */
import { SettingError } from "../common/errors.js";
import type { TokenSpec } from "./config-types.js";
import { parseScope } from "./scopes.js";

/**
 * Parses the whole value; blank = no tokens. Replaces the YAML `auth.tokens` list when set.
 * @throws SettingError naming `source`, the entry and the scope position.
 */
export function parseTokensEnv(value: string, source = "CARTOGRAPHER_TOKENS"): TokenSpec[] {
  if (value.trim() === "") return [];
  return value.split(",").map((raw, index) => {
    const where = `${source} entry ${index + 1}`;
    const entry = raw.trim();
    if (entry === "") throw new SettingError(`${where} is empty (entries are separated by ",")`);
    const bar = entry.indexOf("|");
    if (bar === -1) return checkedToken({ token: entry, origin: where });
    const token = entry.slice(0, bar).trim();
    const scopeText = entry.slice(bar + 1);
    if (scopeText.trim() === "") {
      throw new SettingError(
        `${where} has "|" but no scopes (write tok|kb:<name>:r;kb:<other>:rw, or drop "|" for an admin token)`,
      );
    }
    const scopes = scopeText.split(";").map((scope, s) => {
      if (parseScope(scope) === null) {
        throw new SettingError(`${where}, scope ${s + 1}: expected kb:<name>:r or kb:<name>:rw`);
      }
      return scope.trim();
    });
    return checkedToken({ token, scopes, origin: where });
  });
}

function checkedToken(spec: TokenSpec): TokenSpec {
  if (spec.token === "") throw new SettingError(`${spec.origin}: token value is empty`);
  if (/\s/.test(spec.token))
    throw new SettingError(`${spec.origin}: token value contains whitespace`);
  return spec;
}
