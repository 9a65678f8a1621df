import type { ProviderId, Scope } from "../../config.js";
import { ConfigError } from "../../errors.js";
import type { EntrySpec } from "../../topology.js";
import { editJsonc, parseJsoncObject } from "./json-edit.js";
import {
  detectStyle,
  isSubset,
  mergeEntries,
  parseJsonObject,
  serializeJson,
} from "./json-file.js";
import type { AuthRef, ProviderAdapter, ProviderFiles } from "./provider.js";

/** What distinguishes one JSON-configured provider from another. */
export interface JsonProviderSpec {
  id: ProviderId;
  label: string;
  referencesEnv: boolean;
  /** The object that holds named server entries ("mcpServers", "mcp"). */
  containerKey: string;
  /** The entry field that carries the URL ("url", "serverUrl"). */
  urlField: string;
  userFiles(home: string): ProviderFiles;
  /** Absent when the provider has no project-level file. */
  projectFiles?(cwd: string): ProviderFiles;
  render(url: string, auth: AuthRef): Record<string, unknown>;
  /** Override of the default "rendered entry is a subset of the file's entry" check. */
  matches?(actual: Record<string, unknown>, url: string, auth: AuthRef): boolean;
  fileMode?(auth: AuthRef): number | undefined;
  /**
   * The file may be JSONC (comments, trailing commas) and is edited in place, byte for byte
   * outside our entries (json-edit.ts); otherwise it is plain JSON, re-serialized in its style.
   */
  jsonc?: boolean;
}

/**
 * An Authorization header in the form connect writes (`Bearer ${VAR}`, OpenCode's
 * `Bearer {env:VAR}`): a variable reference, never a literal token — ours to remove when the
 * yaml no longer names a token_env.
 */
export function isOurAuthorization(value: unknown): boolean {
  return (
    typeof value === "string" &&
    /^Bearer (\$\{[A-Z_][A-Z0-9_]*\}|\{env:[A-Z_][A-Z0-9_]*\})$/.test(value)
  );
}

/** Keys this client writes in an entry; any other key of a remote entry is the user's. */
const OWNED_KEYS = ["type", "enabled", "url", "serverUrl"];

/**
 * The entry to write in place of `existing`. A remote entry (one with our URL field) keeps the
 * user's own keys — Kiro's `autoApprove`/`disabledTools`, a timeout, an extra header — and
 * takes ours (the Authorization header is ours whenever we write one). Anything else (a local `command` entry) is
 * replaced whole, since a URL next to a command is no valid entry.
 */
function keepUserKeys(
  existing: unknown,
  rendered: Record<string, unknown>,
  spec: JsonProviderSpec,
): Record<string, unknown> {
  if (existing === null || typeof existing !== "object" || Array.isArray(existing)) return rendered;
  const old = existing as Record<string, unknown>;
  if (typeof old[spec.urlField] !== "string") return rendered;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(old)) {
    if (!OWNED_KEYS.includes(key) && key !== "headers") out[key] = value;
  }
  const oldHeaders = old.headers;
  const headers: Record<string, unknown> =
    oldHeaders !== null && typeof oldHeaders === "object" && !Array.isArray(oldHeaders)
      ? { ...(oldHeaders as Record<string, unknown>) }
      : {};
  // When we write no Authorization (no token_env; Antigravity without --write-token) a header
  // the user wrote by hand is theirs and stays; one in the form we write is ours and goes.
  if (isOurAuthorization(headers.Authorization)) delete headers.Authorization;
  Object.assign(headers, rendered.headers as Record<string, unknown> | undefined);
  const { headers: _ours, ...rest } = rendered;
  return { ...rest, ...out, ...(Object.keys(headers).length > 0 ? { headers } : {}) };
}

export function jsonProvider(spec: JsonProviderSpec): ProviderAdapter {
  const parseRoot = spec.jsonc ? parseJsoncObject : parseJsonObject;
  const container = (text: string | null, file: string): Record<string, unknown> => {
    const root = parseRoot(text, file);
    const c = root[spec.containerKey];
    if (c === undefined) return {};
    if (c === null || typeof c !== "object" || Array.isArray(c)) {
      throw new ConfigError(
        `${file}: "${spec.containerKey}" must be an object; nothing was written`,
      );
    }
    return c as Record<string, unknown>;
  };
  return {
    id: spec.id,
    label: spec.label,
    referencesEnv: spec.referencesEnv,
    paths(scope: Scope, home: string, cwd: string): ProviderFiles {
      if (scope === "user") return spec.userFiles(home);
      if (!spec.projectFiles) {
        throw new ConfigError(`${spec.label} has no project-level MCP file; use --scope user`);
      }
      return spec.projectFiles(cwd);
    },
    listEntries(text, file) {
      const out = new Map<string, string | undefined>();
      for (const [name, value] of Object.entries(container(text, file))) {
        const url = (value as Record<string, unknown> | null)?.[spec.urlField];
        out.set(name, typeof url === "string" ? url : undefined);
      }
      return out;
    },
    applyEntries(text, file, remove, add, auth) {
      const current = container(text, file);
      const rendered = new Map(
        add.map((e): [string, unknown] => [
          e.name,
          keepUserKeys(current[e.name], spec.render(e.url, auth), spec),
        ]),
      );
      if (spec.jsonc) {
        const key = spec.containerKey;
        const edits: [string[], unknown][] = remove
          .filter((name) => !rendered.has(name) && name in current)
          .map((name) => [[key, name], undefined]);
        for (const [name, value] of rendered) edits.push([[key, name], value]);
        if (edits.length === 0 && text !== null && text.trim() !== "") return text;
        return editJsonc(text, file, edits.length > 0 ? edits : [[[key], {}]]);
      }
      const root = parseJsonObject(text, file);
      const next = mergeEntries(current, new Set(remove), rendered);
      // Replace the container in place so the root's key order is untouched.
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(root)) {
        out[key] = key === spec.containerKey ? next : value;
      }
      if (!(spec.containerKey in out)) out[spec.containerKey] = next;
      return serializeJson(out, detectStyle(text));
    },
    entryMatches(text, file, entry: EntrySpec, auth) {
      const actual = container(text, file)[entry.name];
      if (actual === null || typeof actual !== "object") return false;
      if (spec.matches) return spec.matches(actual as Record<string, unknown>, entry.url, auth);
      const rendered = spec.render(entry.url, auth);
      const headers = (actual as { headers?: Record<string, unknown> }).headers;
      // No token_env now: an Authorization of ours left from before is drift (it would stay).
      if (rendered.headers === undefined && isOurAuthorization(headers?.Authorization))
        return false;
      return isSubset(rendered, actual);
    },
    fileMode(auth) {
      return spec.fileMode?.(auth);
    },
  };
}
