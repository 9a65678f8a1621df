import path from "node:path";
import { Document, isMap, isSeq, parseDocument } from "yaml";
import { readTextOrNull, writeFileAtomic } from "./atomic-file.js";
import { ConfigError } from "./errors.js";
import { isGoClientConfig } from "./go-config.js";

export const DEFAULT_SERVER_URL = "http://127.0.0.1:39273";
export const DEFAULT_SERVER_NAME = "cartographer";
export const PROVIDER_IDS = ["claude", "codex", "opencode", "kiro", "antigravity"] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];
export type Scope = "user" | "project";

/** One provider's binding: which KBs its entry reaches (empty/absent = all) and where. */
export interface ProviderBinding {
  name: ProviderId;
  kbs?: string[];
  scope?: Scope;
  /** Antigravity only: the user asked for the literal token to be written (file is 0600). */
  write_token?: boolean;
  /** scope project: the project directory connect ran in (sync/status may run elsewhere). */
  project_dir?: string;
  /** Provisioning: add the SessionStart hook that runs `cartographer sync` (`--bootstrap-hook`). */
  bootstrap_hook?: boolean;
}

/** A hash-bound consent to one KB's MCP server descriptor (`cartographer approve <kb> <name>`). */
export interface McpApproval {
  kb: string;
  name: string;
  /** The descriptor's content hash at approval time; a changed descriptor needs a new approval. */
  content_hash: string;
}

/** The client's view of `.cartographer.yaml`. `token_env` is a variable NAME, never a token. */
export interface ClientConfig {
  server_url: string;
  server_name: string;
  token_env?: string;
  providers: ProviderBinding[];
  /** What /health told us at the last connect/sync: "routed", or "per-kb" for an older server. */
  server_mount_mode?: string;
  server_routed_path?: string;
  server_version?: string;
  /** KB names the server mounted at the last connect (lets doctor expand an all-KB binding). */
  server_kbs?: string[];
  /** Provisioning: KBs whose unsigned artifacts the user consented to materialize. */
  trust?: string[];
  /** Provisioning: pinned Ed25519 public keys (64 hex) per KB; signed artifacts verify against these. */
  signing_keys?: Record<string, string[]>;
  /** Provisioning: approved MCP server descriptors. */
  approvals?: McpApproval[];
  /** Where `{{repo:…}}` looks for clones (absolute or `~/…`); absent = `~/Documents`. */
  search_roots?: string[];
  /** `{{path:<name>}}` (and an override of `{{repo:<name>}}`): name → absolute or `~/…` path. */
  paths?: Record<string, string>;
}

export interface LoadedConfig {
  file: string;
  /** The parsed document, kept so unknown keys and comments survive a save. */
  doc: Document;
  config: ClientConfig;
  exists: boolean;
}

export function defaultConfigPath(home: string): string {
  return path.join(home, ".cartographer.yaml");
}

export function isProviderId(value: string): value is ProviderId {
  return (PROVIDER_IDS as readonly string[]).includes(value);
}

function stringList(value: unknown, key: string, file: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
    throw new ConfigError(`${file}: ${key} must be a list of strings`);
  }
  return value as string[];
}

function optionalString(value: unknown, key: string, file: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new ConfigError(`${file}: ${key} must be a string`);
  return value;
}

const HEX64 = /^[0-9a-f]{64}$/;

function parseSigningKeys(value: unknown, file: string): Record<string, string[]> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new ConfigError(`${file}: signing_keys must map a KB name to a list of public keys`);
  }
  const out: Record<string, string[]> = {};
  for (const [kb, keys] of Object.entries(value as Record<string, unknown>)) {
    const list = stringList(keys, `signing_keys.${kb}`, file) ?? [];
    const bad = list.find((k) => !HEX64.test(k));
    if (bad !== undefined) {
      throw new ConfigError(
        `${file}: signing_keys.${kb}: ${JSON.stringify(bad.slice(0, 80))} is not an Ed25519 public key (64 lowercase hex)`,
      );
    }
    out[kb] = list;
  }
  return out;
}

function parseApprovals(value: unknown, file: string): McpApproval[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw new ConfigError(`${file}: approvals must be a list`);
  return value.map((raw, i): McpApproval => {
    const item = (raw ?? {}) as Record<string, unknown>;
    const kb = optionalString(item.kb, `approvals[${i}].kb`, file);
    const name = optionalString(item.name, `approvals[${i}].name`, file);
    const hash = optionalString(item.content_hash, `approvals[${i}].content_hash`, file);
    if (!kb || !name || !hash || !HEX64.test(hash)) {
      throw new ConfigError(
        `${file}: approvals[${i}] needs kb, name and content_hash (64 lowercase hex); use cartographer approve <kb> <name>`,
      );
    }
    return { kb, name, content_hash: hash };
  });
}

/** A user-written local path: absolute, or under the home folder as `~/…`. */
function localPath(value: unknown, key: string, file: string): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw new ConfigError(`${file}: ${key} must be a path`);
  }
  if (!(path.isAbsolute(value) || value === "~" || value.startsWith("~/"))) {
    throw new ConfigError(
      `${file}: ${key}: "${value}" is relative; write an absolute path or one starting with ~/`,
    );
  }
  return value;
}

function parseSearchRoots(value: unknown, file: string): string[] | undefined {
  const roots = stringList(value, "search_roots", file);
  return roots?.map((r, i) => localPath(r, `search_roots[${i}]`, file));
}

/** Names a placeholder can carry: no braces, no whitespace (placeholders.ts). */
const PATH_NAME = /^[^{}\s]+$/;

function parsePaths(value: unknown, file: string): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new ConfigError(`${file}: paths must map a name to a path (paths: { name: ~/folder })`);
  }
  const out: Record<string, string> = {};
  for (const [name, p] of Object.entries(value as Record<string, unknown>)) {
    if (!PATH_NAME.test(name)) {
      throw new ConfigError(`${file}: paths: "${name}" is not a usable name (no braces or spaces)`);
    }
    out[name] = localPath(p, `paths.${name}`, file);
  }
  return out;
}

/** Validates the plain JS value of the document; errors name the offending key. */
export function parseClientConfig(raw: unknown, file: string): ClientConfig {
  const obj = (raw ?? {}) as Record<string, unknown>;
  if (typeof obj !== "object" || Array.isArray(obj)) {
    throw new ConfigError(`${file}: the top level must be a mapping`);
  }
  const providersRaw = obj.providers ?? [];
  if (!Array.isArray(providersRaw)) throw new ConfigError(`${file}: providers must be a list`);
  const providers = providersRaw.map((p, i): ProviderBinding => {
    const item = p as Record<string, unknown>;
    const name = item?.name;
    if (typeof name !== "string" || !isProviderId(name)) {
      throw new ConfigError(
        `${file}: providers[${i}].name must be one of ${PROVIDER_IDS.join(", ")} (got ${JSON.stringify(name)})`,
      );
    }
    const scope = item.scope;
    if (scope !== undefined && scope !== "user" && scope !== "project") {
      throw new ConfigError(`${file}: providers[${i}].scope must be user or project`);
    }
    const binding: ProviderBinding = { name };
    const kbs = stringList(item.kbs, `providers[${i}].kbs`, file);
    if (kbs) binding.kbs = kbs;
    if (scope) binding.scope = scope;
    if (item.write_token === true) binding.write_token = true;
    const projectDir = optionalString(item.project_dir, `providers[${i}].project_dir`, file);
    if (projectDir && scope === "project") binding.project_dir = projectDir;
    if (item.bootstrap_hook === true) binding.bootstrap_hook = true;
    return binding;
  });
  const config: ClientConfig = {
    server_url: optionalString(obj.server_url, "server_url", file) ?? DEFAULT_SERVER_URL,
    server_name: optionalString(obj.server_name, "server_name", file) ?? DEFAULT_SERVER_NAME,
    providers,
  };
  const tokenEnv = optionalString(obj.token_env, "token_env", file);
  if (tokenEnv) config.token_env = tokenEnv;
  const mode = optionalString(obj.server_mount_mode, "server_mount_mode", file);
  if (mode) config.server_mount_mode = mode;
  const routed = optionalString(obj.server_routed_path, "server_routed_path", file);
  if (routed) config.server_routed_path = routed;
  const version = optionalString(obj.server_version, "server_version", file);
  if (version) config.server_version = version;
  const kbs = stringList(obj.server_kbs, "server_kbs", file);
  if (kbs) config.server_kbs = kbs;
  const trust = stringList(obj.trust, "trust", file);
  if (trust) config.trust = trust;
  const signingKeys = parseSigningKeys(obj.signing_keys, file);
  if (signingKeys) config.signing_keys = signingKeys;
  const approvals = parseApprovals(obj.approvals, file);
  if (approvals) config.approvals = approvals;
  const searchRoots = parseSearchRoots(obj.search_roots, file);
  if (searchRoots) config.search_roots = searchRoots;
  const paths = parsePaths(obj.paths, file);
  if (paths) config.paths = paths;
  if (!/^[A-Za-z0-9_-]+$/.test(config.server_name)) {
    throw new ConfigError(`${file}: server_name must use letters, digits, - and _ only`);
  }
  return config;
}

/** Loads the yaml; a missing file yields defaults with `exists: false`. */
export async function loadConfig(file: string): Promise<LoadedConfig> {
  const text = await readTextOrNull(file);
  if (text === null) {
    return { file, doc: new Document({}), config: parseClientConfig({}, file), exists: false };
  }
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    throw new ConfigError(`${file}: not valid YAML: ${doc.errors[0]?.message}`);
  }
  if (doc.contents !== null && !isMap(doc.contents)) {
    throw new ConfigError(`${file}: the top level must be a mapping`);
  }
  const raw = doc.toJS();
  if (isGoClientConfig(raw)) {
    throw new ConfigError(
      `${file} is in the Go client's shape (agents:, auth:, trust: true|false); run cartographer upgrade-repair to convert it (the original is kept beside it)`,
    );
  }
  return { file, doc, config: parseClientConfig(raw, file), exists: true };
}

const SCALAR_KEYS = [
  "server_url",
  "server_name",
  "token_env",
  "server_mount_mode",
  "server_routed_path",
  "server_version",
] as const;

/**
 * Writes `config` into the document in place (unknown top-level keys, unknown provider keys
 * and comments outside the rewritten values survive) and saves it atomically.
 */
export async function saveConfig(loaded: LoadedConfig, config: ClientConfig): Promise<void> {
  const { doc } = loaded;
  if (doc.contents === null) doc.contents = doc.createNode({}) as never;
  for (const key of SCALAR_KEYS) {
    const value = config[key];
    if (value === undefined) doc.delete(key);
    else if (doc.get(key) !== value) doc.set(key, value);
  }
  if (config.server_kbs) doc.set("server_kbs", doc.createNode(config.server_kbs, { flow: true }));
  else doc.delete("server_kbs");
  if (config.trust && config.trust.length > 0) {
    doc.set("trust", doc.createNode(config.trust, { flow: true }));
  } else doc.delete("trust");
  if (config.signing_keys && Object.keys(config.signing_keys).length > 0) {
    doc.set("signing_keys", doc.createNode(config.signing_keys));
  } else doc.delete("signing_keys");
  if (config.approvals && config.approvals.length > 0) {
    doc.set("approvals", doc.createNode(config.approvals));
  } else doc.delete("approvals");
  // Keep any keys a user added to a provider item; overlay the ones we own.
  const previous = doc.get("providers");
  const previousItems = isSeq(previous) ? (previous.toJSON() as Record<string, unknown>[]) : [];
  const items = config.providers.map((p) => {
    const old = previousItems.find((o) => o?.name === p.name) ?? {};
    const item: Record<string, unknown> = { ...old, name: p.name };
    delete item.kbs;
    delete item.scope;
    delete item.write_token;
    delete item.project_dir;
    delete item.bootstrap_hook;
    if (p.bootstrap_hook) item.bootstrap_hook = true;
    if (p.kbs && p.kbs.length > 0) item.kbs = p.kbs;
    if (p.scope) item.scope = p.scope;
    if (p.project_dir) item.project_dir = p.project_dir;
    if (p.write_token) item.write_token = true;
    return item;
  });
  doc.set("providers", doc.createNode(items));
  // An unchanged yaml is not rewritten (a no-op sync changes no mtime under $HOME).
  const text = doc.toString();
  if (text !== (await readTextOrNull(loaded.file))) await writeFileAtomic(loaded.file, text);
}
