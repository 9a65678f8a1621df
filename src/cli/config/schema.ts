/**
 * The server configuration file (YAML) as a zod schema. Unknown keys are refused with their
 * path named, so a typo never passes silently (design.md P7). The `auth` section is validated by
 * src/auth/config.ts; here it is carried through as data.
 */
import { z } from "zod";
import { MAX_CONNECTIONS, MAX_TIMEOUT_SECONDS } from "./http-limits.js";
import { MAX_REFRESH_SECONDS } from "./values.js";

const gitAuthor = z.strictObject({ name: z.string().min(1), email: z.string().min(1) });

const kbEntry = z.strictObject({
  path: z.string().min(1),
  name: z.string().min(1).optional(),
  allow_artifact_write: z.boolean().optional(),
  git_author: gitAuthor.optional(),
  /** Deprecated (D288): accepted, ignored, one startup warning. */
  tool_prefix: z.string().optional(),
});

export const fileConfigSchema = z.strictObject({
  /** `host:port`, `:port` or a port number. */
  http: z.union([z.string(), z.number()]).optional(),
  data: z.string().optional(),
  kbs: z.array(kbEntry).optional(),
  tools: z.strictObject({ profile: z.enum(["agent", "full"]).optional() }).optional(),
  git: z
    .strictObject({ autocommit: z.boolean().optional(), author: gitAuthor.optional() })
    .optional(),
  cors: z.strictObject({ origins: z.array(z.string()).optional() }).optional(),
  allowed_hosts: z.array(z.string()).optional(),
  allowed_origins: z.array(z.string()).optional(),
  max_body_bytes: z.number().int().positive().optional(),
  /** HTTP connection limits (http-limits.ts). */
  max_connections: z.number().int().min(1).max(MAX_CONNECTIONS).optional(),
  headers_timeout_seconds: z.number().positive().max(MAX_TIMEOUT_SECONDS).optional(),
  request_timeout_seconds: z.number().positive().max(MAX_TIMEOUT_SECONDS).optional(),
  /** Public base URL behind a proxy (auth metadata, WWW-Authenticate). */
  public_url: z.string().optional(),
  /** Background index refresh: seconds between stat-based reconciles, 0 = off. */
  index: z
    .strictObject({ refresh_seconds: z.number().min(0).max(MAX_REFRESH_SECONDS).optional() })
    .optional(),
  mcp: z
    .strictObject({
      mount_mode: z.string().optional(),
      tool_prefix_mode: z.string().optional(),
    })
    .optional(),
  auth: z.unknown().optional(),
  audit: z
    .strictObject({
      log: z.string().optional(),
      mode: z.enum(["best_effort", "required"]).optional(),
      key_seed: z.string().optional(),
      max_segment_bytes: z.number().int().positive().optional(),
      archive_dir: z.string().optional(),
      retention_days: z.number().int().positive().optional(),
    })
    .optional(),
});

export type FileConfig = z.infer<typeof fileConfigSchema>;
export type KbEntry = z.infer<typeof kbEntry>;

/** Renders zod issues as `key.path: message (got <value>)`; `input` is what was parsed. */
export function describeIssues(error: z.ZodError, input?: unknown): string {
  return error.issues
    .map((issue) => {
      const key = issue.path.length > 0 ? issue.path.join(".") : "(top level)";
      const value = issue.path.length > 0 ? valueAt(input, issue.path) : undefined;
      const got = value === undefined ? "" : ` (got ${preview(value)})`;
      return `${key}: ${issue.message}${got}`;
    })
    .join("; ");
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let at = input;
  for (const step of path) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<PropertyKey, unknown>)[step];
  }
  return at;
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
