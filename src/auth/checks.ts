/**
 * Semantic checks of the auth config (D118), shared by the YAML schema and by compileAuth (which
 * also sees env/flag tokens). Each returns human-readable problems naming the role, or the token
 * by its id / position — never by its value, never echoing a scope string that might be a
 * mistyped token.
 */
import { isScopeKbName, parseScope } from "./scopes.js";

/** Loosely typed shapes: checks run before the values are known to be well formed. */
export interface RuleLike {
  kb: string;
  access: string;
  maps?: readonly string[];
  journals?: readonly string[];
  types?: readonly string[];
}

export interface RoleLike {
  name: string;
  rules: readonly RuleLike[];
}

export interface TokenLike {
  token: string;
  id?: string;
  scopes?: readonly string[];
  roles?: readonly string[];
  /** Where the token was declared (`auth.tokens[2]`, `CARTOGRAPHER_TOKENS entry 3`). */
  origin?: string;
}

/** How a token is named in messages: its configured id and its origin, never its value. */
export function tokenLabel(token: TokenLike, index: number): string {
  const where = token.origin ?? `auth.tokens[${index}]`;
  return token.id !== undefined ? `token "${token.id}" (${where})` : `token ${where}`;
}

const SELECTOR_KINDS = ["maps", "journals", "types"] as const;

/** Empty, path-like (`/`, `\`, `..`) or padded names cannot name a top-level folder or a type. */
function selectorProblem(value: string): string | null {
  if (value.trim() === "") return "is empty";
  if (value !== value.trim()) return "has leading or trailing spaces";
  if (value.includes("/") || value.includes("\\") || value.includes("..")) {
    return `"${value}" is path-like (a selector names one top-level map/journal or one type)`;
  }
  return null;
}

export function roleProblems(roles: readonly RoleLike[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  roles.forEach((role, index) => {
    const name = role.name.trim();
    if (name === "") {
      problems.push(`auth.roles[${index}]: role name is empty`);
      return;
    }
    const label = `role "${name}"`;
    if (seen.has(name))
      problems.push(`${label}: declared more than once (role names must be unique)`);
    seen.add(name);
    const maps = new Set<string>();
    const journals = new Set<string>();
    role.rules.forEach((rule, r) => {
      const at = `${label} rule ${r + 1}`;
      if (rule.kb.trim() === "")
        problems.push(`${at}: kb is empty (name the KB this rule applies to)`);
      else if (!isScopeKbName(rule.kb)) problems.push(`${at}: kb "${rule.kb}" is not a KB name`);
      if (rule.access !== "r" && rule.access !== "rw") {
        problems.push(`${at}: access must be "r" or "rw"`);
      }
      for (const kind of SELECTOR_KINDS) {
        (rule[kind] ?? []).forEach((value, v) => {
          const problem = selectorProblem(value);
          if (problem !== null) problems.push(`${at}: ${kind}[${v}] ${problem}`);
        });
      }
      for (const m of rule.maps ?? []) maps.add(m);
      for (const j of rule.journals ?? []) journals.add(j);
    });
    for (const m of maps) {
      if (journals.has(m)) {
        problems.push(
          `${label}: "${m}" is declared both as a map and as a journal (a folder is one or the other)`,
        );
      }
    }
  });
  return problems;
}

/**
 * Token-level checks: empty values, scope syntax, unknown roles, explicit empty grants, and
 * duplicate configured ids. Duplicate derived ids (= duplicate values) are found by compileAuth.
 */
export function tokenProblems(
  tokens: readonly TokenLike[],
  roleNames: ReadonlySet<string>,
): string[] {
  const problems: string[] = [];
  const ids = new Map<string, string>();
  tokens.forEach((token, index) => {
    const label = tokenLabel(token, index);
    if (token.token.trim() === "") problems.push(`${label}: token value is empty`);
    else if (/\s/.test(token.token)) problems.push(`${label}: token value contains whitespace`);
    if (token.id !== undefined) {
      if (token.id.trim() === "" || /\s/.test(token.id)) {
        problems.push(`${label}: id must be non-empty without whitespace`);
      }
      const first = ids.get(token.id);
      if (first !== undefined)
        problems.push(`${label}: principal id "${token.id}" is already used by ${first}`);
      else ids.set(token.id, label);
    }
    (token.scopes ?? []).forEach((scope, s) => {
      if (parseScope(scope) === null) {
        problems.push(`${label}: scope ${s + 1} is not of the form kb:<name>:r or kb:<name>:rw`);
      }
    });
    for (const role of token.roles ?? []) {
      if (!roleNames.has(role))
        problems.push(`${label}: unknown role "${role}" (declare it under auth.roles)`);
    }
    // An explicit empty grant list would otherwise read as "no scopes and no roles" = admin:
    // fail closed and ask for the intent to be spelled out.
    const scopes = token.scopes;
    const roles = token.roles;
    if (
      (scopes !== undefined || roles !== undefined) &&
      (scopes ?? []).length === 0 &&
      (roles ?? []).length === 0
    ) {
      problems.push(
        `${label}: scopes/roles are present but empty; omit both for an admin token, or grant something`,
      );
    }
  });
  return problems;
}
