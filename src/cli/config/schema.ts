/**
 * The server configuration file (YAML) as a zod schema. Unknown keys are refused with their
 * path named, so a typo never passes silently (design.md P7). The `auth` section is validated by
 * src/auth/config.ts; here it is carried through as data.
 */
import { z } from "zod";
import { consoleSchema } from "./console-keys.js";
import { embeddingsSchema } from "./embeddings-keys.js";
import { type GoSection, ignoredKeysOf } from "./go-keys.js";
import { MAX_CONNECTIONS, MAX_TIMEOUT_SECONDS } from "./http-limits.js";
import { metricsSchema } from "./metrics-keys.js";
import { unknownKeyMessage } from "./suggest.js";
import { MAX_REFRESH_SECONDS } from "./values.js";

const gitAuthor = z.strictObject({ name: z.string().min(1), email: z.string().min(1) });

/** The Go keys of `section` accepted with any value and a startup warning (go-keys.ts). */
function goIgnored(section: GoSection): Record<string, z.ZodOptional<z.ZodUnknown>> {
  return Object.fromEntries(ignoredKeysOf(section).map((name) => [name, z.unknown().optional()]));
}

const kbEntry = z
  .strictObject({
    ...goIgnored("kbs[]"),
    /** Required unless the (Go) entry names a `remote` — such an entry is skipped with a warning. */
    path: z.string().min(1).optional(),
    name: z.string().min(1).optional(),
    allow_artifact_write: z.boolean().optional(),
    /** 64-hex Ed25519 seed signing this KB's provisioning artifacts (docs/provisioning.md). */
    artifact_signing_seed: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, "must be 64 hexadecimal characters (a 32-byte Ed25519 seed)")
      .optional(),
    mcp_allowlist: z
      .array(
        z.strictObject({
          name: z.string().min(1),
          transport: z.enum(["http", "stdio"]),
          target: z.string().min(1),
        }),
      )
      .optional(),
    git_author: gitAuthor.optional(),
    /** Remote git URL or path: cloned into `<data>/<name>` (or `path`) when absent (sync-keys.ts). */
    remote: z.string().min(1).optional(),
    ssh_key: z.string().min(1).optional(),
    known_hosts: z.string().min(1).optional(),
    author_name: z.string().min(1).optional(),
    author_email: z.string().min(1).optional(),
    committer_name: z.string().min(1).optional(),
    committer_email: z.string().min(1).optional(),
    /** Age key file for this KB's secret tools (SOPS_AGE_KEY_FILE of the sops child). */
    sops_age_key_file: z.string().min(1).optional(),
    /** Deprecated (D288): accepted, ignored, one startup warning. */
    tool_prefix: z.string().optional(),
  })
  .refine((entry) => entry.path !== undefined || entry.remote !== undefined, {
    message: "path or remote is required",
    path: ["path"],
  });

export const fileConfigSchema = z.strictObject({
  ...goIgnored(""),
  /** `host:port`, `:port` or a port number. */
  http: z.union([z.string(), z.number()]).optional(),
  data: z.string().optional(),
  /** Go's `init: true`: create missing KBs (every empty subfolder of `data`, missing kbs[].path). */
  init: z.boolean().optional(),
  kbs: z.array(kbEntry).optional(),
  tools: z
    .strictObject({ ...goIgnored("tools"), profile: z.enum(["agent", "full"]).optional() })
    .optional(),
  git: z
    .strictObject({
      ...goIgnored("git"),
      autocommit: z.boolean().optional(),
      author: gitAuthor.optional(),
      /** Go's spelling of git.author (both or neither). */
      author_name: z.string().min(1).optional(),
      author_email: z.string().min(1).optional(),
      committer_name: z.string().min(1).optional(),
      committer_email: z.string().min(1).optional(),
      /** Remote sync (sync-keys.ts): on when a KB has an origin; durations in s or `30s`. */
      sync: z.boolean().optional(),
      in_window: z.union([z.number().min(0), z.string()]).optional(),
      out_debounce: z.union([z.number().min(0), z.string()]).optional(),
      poll_seconds: z.union([z.number().min(0), z.string()]).optional(),
      /** Bound of every git network command (sync-keys.ts; default 30 s). */
      network_timeout: z.union([z.number().min(0), z.string()]).optional(),
      ssh_key: z.string().min(1).optional(),
      known_hosts: z.string().min(1).optional(),
      token_dir: z.string().min(1).optional(),
    })
    .optional(),
  /** Go-only keys: accepted, one warning per key set (go-keys.ts); embeddings: embeddings-keys.ts. */
  search: z
    .strictObject({
      ...goIgnored("search"),
      /** Go's keys (go-keys.ts): Ollama semantic search, as `embeddings` with provider ollama. */
      ollama_url: z.string().optional(),
      ollama_model: z.string().optional(),
      embeddings: embeddingsSchema.optional(),
    })
    .optional(),
  /** Fallback age keys (sops-keys.ts): `<age_key_dir>/<kb>.age`, then `age_key_file`. */
  sops: z
    .strictObject({
      ...goIgnored("sops"),
      age_key_file: z.string().min(1).optional(),
      age_key_dir: z.string().min(1).optional(),
    })
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
      ...goIgnored("mcp"),
      mount_mode: z.string().optional(),
      tool_prefix_mode: z.string().optional(),
    })
    .optional(),
  auth: z.unknown().optional(),
  /** Console session limits (console-keys.ts). */
  console: consoleSchema.optional(),
  /** GET /metrics (metrics-keys.ts). */
  metrics: metricsSchema.optional(),
  audit: z
    .strictObject({
      ...goIgnored("audit"),
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

/**
 * Renders zod issues as `key.path: message (got <value>)`; `input` is what was parsed. An unknown
 * key names the nearest known key of its block: "unknown key `htpp`; did you mean `http`?".
 */
/** Keys whose values are secrets: a validation message never quotes them. */
const SECRET_KEYS: ReadonlySet<string> = new Set(["artifact_signing_seed", "key_seed", "token"]);

export function describeIssues(error: z.ZodError, input?: unknown): string {
  return error.issues
    .map((issue) => {
      if (issue.code === "unrecognized_keys") {
        const known = keysAt(fileConfigSchema, issue.path);
        const where = issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
        return issue.keys.map((k) => `${where}${unknownKeyMessage(k, known)}`).join("; ");
      }
      const key = issue.path.length > 0 ? issue.path.join(".") : "(top level)";
      // A key holding a secret is named, its value never echoed.
      const secret = SECRET_KEYS.has(String(issue.path[issue.path.length - 1]));
      const value = issue.path.length > 0 && !secret ? valueAt(input, issue.path) : undefined;
      const got = value === undefined ? "" : ` (got ${preview(value)})`;
      return `${key}: ${issue.message}${got}`;
    })
    .join("; ");
}

/** The keys the schema accepts in the object at `path` (a number steps into an array's element). */
export function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  const unwrap = (s: unknown) => (s instanceof z.ZodOptional ? s.unwrap() : s);
  let at: unknown = schema;
  for (const step of path) {
    at = unwrap(at);
    if (typeof step === "number" && at instanceof z.ZodArray) at = at.element;
    else if (typeof step === "string" && at instanceof z.ZodObject)
      at = (at.shape as Record<string, unknown>)[step];
    else return [];
  }
  at = unwrap(at);
  return at instanceof z.ZodObject ? Object.keys(at.shape) : [];
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
