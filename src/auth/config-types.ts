/**
 * The shapes of the auth settings (D44, D118), apart from the code that parses them: the YAML
 * parser (config.ts), the env/flag parsers (tokens-env.ts, env-refs.ts), their merge
 * (resolve.ts) and the compiler (tokens.ts) all use them, and none of them imports another's
 * parser for a type.
 */
import type { Access } from "./types.js";

export type AuthMode = "auto" | boolean;

export interface TokenSpec {
  token: string;
  id?: string;
  /** `kb:<name>:r|rw` strings. */
  scopes?: string[];
  /** Names of `auth.roles` entries. */
  roles?: string[];
  /** Where it was declared, for messages (`auth.tokens[2]`, `CARTOGRAPHER_TOKENS entry 3`). */
  origin?: string;
}

export interface RoleRuleSpec {
  kb: string;
  access: Access;
  maps?: string[];
  journals?: string[];
  types?: string[];
}

export interface RoleSpec {
  name: string;
  rules: RoleRuleSpec[];
}

/** The parsed `auth:` block with defaults applied. */
export interface AuthConfig {
  mode: AuthMode;
  tokens: TokenSpec[];
  roles: RoleSpec[];
  authorization_servers: string[];
}

/** What compileAuth takes: YAML merged with env/flag overrides, `${ENV}` already expanded. */
export interface ResolvedAuthInput {
  mode: AuthMode;
  tokens: TokenSpec[];
  roles: RoleSpec[];
}

export type Env = Readonly<Record<string, string | undefined>>;
