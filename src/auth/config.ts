/**
 * The `auth:` part of the server config (D44, D118): its schema and parser. The env/flag forms
 * that override it are tokens-env.ts and resolve.ts. Pure: nothing here reads process.env.
 *
 * YAML:
 *   auth:
 *     mode: auto | true | false          # default auto = on when tokens exist
 *     tokens:
 *       - ${ADMIN_TOKEN}                 # bare string = admin
 *       - { token: "${CI_TOKEN}", id: ci, scopes: ["kb:docs:r"], roles: [ops] }
 *     roles:
 *       - { name: ops, rules: [{ kb: docs, access: rw, maps: [infra], types: [runbook] }] }
 *     authorization_servers: ["https://issuer.example"]
 */
import { z } from "zod";
import { SettingError } from "../common/errors.js";
import { roleProblems, tokenProblems } from "./checks.js";
import type { AuthConfig, RoleSpec, TokenSpec } from "./config-types.js";

const names = z.array(z.string());

const tokenEntrySchema = z.union(
  [
    z.string(),
    z
      .object({
        token: z.string(),
        id: z.string().optional(),
        scopes: names.optional(),
        roles: names.optional(),
      })
      .strict(),
  ],
  { error: "a token is a string (admin) or {token, id?, scopes?, roles?}" },
);

const ruleSchema = z
  .object({
    kb: z.string(),
    // A plain string so the semantic check can name the role instead of a bare path.
    access: z.string(),
    maps: names.optional(),
    journals: names.optional(),
    types: names.optional(),
  })
  .strict();

const roleSchema = z.object({ name: z.string(), rules: z.array(ruleSchema) }).strict();

const rawAuthSchema = z
  .object({
    mode: z
      .union([z.literal("auto"), z.boolean()], { error: "must be auto, true or false" })
      .optional(),
    tokens: z.array(tokenEntrySchema).optional(),
    roles: z.array(roleSchema).optional(),
    authorization_servers: z.array(z.url()).optional(),
  })
  .strict();

type RawAuth = z.infer<typeof rawAuthSchema>;

function normalizeTokens(entries: RawAuth["tokens"]): TokenSpec[] {
  return (entries ?? []).map((entry, index) => {
    const origin = `auth.tokens[${index}]`;
    if (typeof entry === "string") return { token: entry, origin };
    const spec: TokenSpec = { token: entry.token, origin };
    if (entry.id !== undefined) spec.id = entry.id;
    if (entry.scopes !== undefined) spec.scopes = entry.scopes;
    if (entry.roles !== undefined) spec.roles = entry.roles;
    return spec;
  });
}

/**
 * Zod schema of the `auth:` block. Structural errors carry the zod path; semantic ones (D118
 * list: duplicate role, duplicate id, unknown role, empty kb, bad access, empty/path-like
 * selector, map-and-journal clash) name the role or token id/position, never a token value.
 * `${ENV}` references in token values are left as written (see expandEnvRefs).
 */
export const authConfigSchema = rawAuthSchema
  .superRefine((raw, ctx) => {
    const roles = raw.roles ?? [];
    const problems = [
      ...roleProblems(roles),
      ...tokenProblems(normalizeTokens(raw.tokens), new Set(roles.map((r) => r.name.trim()))),
    ];
    for (const message of problems) ctx.addIssue({ code: "custom", message });
  })
  .transform(
    (raw): AuthConfig => ({
      mode: raw.mode ?? "auto",
      tokens: normalizeTokens(raw.tokens),
      roles: (raw.roles ?? []) as RoleSpec[],
      authorization_servers: raw.authorization_servers ?? [],
    }),
  );

/** Parses the `auth:` block (undefined = defaults); throws SettingError listing every problem. */
export function parseAuthConfig(raw: unknown): AuthConfig {
  const result = authConfigSchema.safeParse(raw ?? {});
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => {
    const path = issue.path
      .map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`))
      .join("");
    return issue.code === "custom" ? `- ${issue.message}` : `- auth${path}: ${issue.message}`;
  });
  throw new SettingError(`invalid auth config:\n${lines.join("\n")}`);
}
