/**
 * MCP server descriptors a KB distributes (`mcp/<name>.json`) and the server's allow-list that
 * decides which of them the manifest offers (docs/provisioning.md "MCP descriptors"). Pure.
 *
 * A descriptor is `{"type":"http","url","headers"?,"env"?}` or `{"type":"stdio","command","args"?,
 * "env"?}` — the Go implementation's mcpspec.go rule, so a Go KB's descriptors load: every header
 * and env value must reference at least one `${VAR}` (`Bearer ${T}`, `postgres://u:${PW}@h/db`),
 * so no secret is ever stored in a KB or written into a provider file; env keys are portable
 * variable names; an http `env` is validated but no provider receives it (as in Go); the other
 * transport's fields are accepted only empty (Go's zero values).
 */

/** One `mcp_allowlist` entry: name, transport and target must all match the descriptor. */
export interface McpAllowEntry {
  name: string;
  transport: "http" | "stdio";
  /** The URL (http, compared normalized) or the exact command (stdio). */
  target: string;
}

export type McpDescriptor =
  | { type: "http"; url: string; headers?: Record<string, string>; env?: Record<string, string> }
  | { type: "stdio"; command: string; args?: string[]; env?: Record<string, string> };

const VAR_REF = /\$\{[A-Za-z_][A-Za-z0-9_]*\}/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const FIELDS = {
  http: ["type", "url", "headers", "env"],
  stdio: ["type", "command", "args", "env"],
};

/** Go's zero value of a field (`""`, `[]`, `{}`): the other transport's field may be present so. */
function isEmpty(v: unknown): boolean {
  if (v === "" || (Array.isArray(v) && v.length === 0)) return true;
  return v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0;
}

function refsOnly(value: unknown, field: string): string | null {
  if (value === undefined) return null;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return `${field} must be an object of strings`;
  }
  for (const [k, v] of Object.entries(value)) {
    if (field === "env" && !ENV_NAME.test(k)) {
      return `env key ${JSON.stringify(k)} is not a portable variable name`;
    }
    if (typeof v !== "string" || !VAR_REF.test(v)) {
      return `${field}.${k} must reference a \${VAR} (a literal value looks like a secret)`;
    }
  }
  return null;
}

/** The normalized URL an http descriptor and an allow-list entry are compared by; null if bad. */
export function normalizeMcpUrl(url: string): string | null {
  try {
    const u = new URL(url);
    if (u.protocol !== "https:" && u.protocol !== "http:") return null;
    if (u.username || u.password || u.hash) return null;
    return u.href;
  } catch {
    return null;
  }
}

/** Parses and validates a descriptor; `{ error }` names what is wrong (never a header value). */
export function parseMcpDescriptor(
  text: string,
): { descriptor: McpDescriptor } | { error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { error: "not valid JSON" };
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return { error: "must be a JSON object" };
  }
  const obj = raw as Record<string, unknown>;
  const type = obj.type;
  if (type !== "http" && type !== "stdio") return { error: 'type must be "http" or "stdio"' };
  const unknown = Object.keys(obj).filter(
    (k) =>
      !FIELDS[type].includes(k) &&
      !(FIELDS.http.concat(FIELDS.stdio).includes(k) && isEmpty(obj[k])),
  );
  if (unknown.length > 0) return { error: `unknown field(s) for ${type}: ${unknown.join(", ")}` };
  for (const k of Object.keys(obj)) if (!FIELDS[type].includes(k)) delete obj[k];
  if (type === "http") {
    if (typeof obj.url !== "string" || normalizeMcpUrl(obj.url) === null) {
      return { error: "url must be an absolute http(s) URL without credentials or fragment" };
    }
    const bad = refsOnly(obj.headers, "headers") ?? refsOnly(obj.env, "env");
    if (bad) return { error: bad };
    return { descriptor: obj as McpDescriptor };
  }
  const command = obj.command;
  if (typeof command !== "string" || command === "" || /[\s;&|`$<>]/.test(command)) {
    return { error: "command must be a bare executable name or absolute path (no shell syntax)" };
  }
  if (command.includes("/") && (!command.startsWith("/") || command.split("/").includes(".."))) {
    return { error: "command must be a bare name (looked up on PATH) or a clean absolute path" };
  }
  if (obj.args !== undefined) {
    if (!Array.isArray(obj.args) || obj.args.some((a) => typeof a !== "string")) {
      return { error: "args must be an array of strings" };
    }
  }
  const bad = refsOnly(obj.env, "env");
  if (bad) return { error: bad };
  return { descriptor: obj as McpDescriptor };
}

/** True when an allow-list entry names this descriptor: same name, transport and target. */
export function mcpAllowed(
  allowlist: readonly McpAllowEntry[] | undefined,
  name: string,
  descriptor: McpDescriptor,
): boolean {
  return (allowlist ?? []).some((e) => {
    if (e.name !== name || e.transport !== descriptor.type) return false;
    if (descriptor.type === "stdio") return e.target === descriptor.command;
    const want = normalizeMcpUrl(e.target);
    return want !== null && want === normalizeMcpUrl(descriptor.url);
  });
}
