/**
 * The audit line formats of the Go implementation (v0.5), so `audit verify`/`export` read a log
 * that Go wrote — or that Go started and this server continued (docs/migrating-from-go.md "Audit
 * logs"). Pure.
 *
 *   go-d18  no `version` (Go's version 0, decision D18): hash = sha256 hex of
 *           `Timestamp|Tool|Args|AgentID|Outcome|PrevHash`, Timestamp as Go's RFC3339Nano in UTC
 *   go-v2   `version: 2` (Go's D119): hash = sha256 hex of Go's json.Marshal of the fixed field
 *           list below (HTML-escaped strings, resources keys sorted, some fields omitted when empty)
 *
 * Both: `prev_hash` of the first entry is "genesis"; optional `sig` = Ed25519 over the 64 ASCII hex
 * bytes of `hash` (as ours); unsigned entries are valid.
 */
import { isHashHex, isSigHex, SHAPE, sha256Hex } from "./entry.js";

export type LineFormat = "cartographer-v1" | "go-v2" | "go-d18";

/** A Go line as written by encoding/json (fields with omitempty may be absent). */
export interface GoAuditEntry {
  version?: number;
  id?: string;
  timestamp: string;
  phase?: string;
  request_id?: string;
  principal_id?: string;
  transport?: string;
  kb?: string;
  tool: string;
  external_tool?: string;
  read_only?: boolean;
  resources?: Record<string, string>;
  args?: string;
  agent_id?: string;
  outcome: string;
  duration_ms?: number;
  commit_sha?: string;
  prev_hash: string;
  hash: string;
  sig?: string;
}

/** Outcomes Go's v2 completions may carry (internal/audit validOutcome). */
const GO_OUTCOMES = new Set([
  "success",
  "application_error",
  "internal_error",
  "unauthenticated",
  "unauthorized",
  "cancelled",
  "audit_unavailable",
  "unknown_tool",
]);

/** The format of a parsed line by its `version`, or undefined for a version no one wrote. */
export function lineFormat(version: unknown): LineFormat | undefined {
  if (version === 1) return "cartographer-v1";
  if (version === 2) return "go-v2";
  if (version === undefined || version === 0) return "go-d18";
  return undefined;
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|([+-])(\d{2}):(\d{2}))$/;

/**
 * Go's `t.UTC().Format(time.RFC3339Nano)` of an RFC 3339 timestamp: converted to UTC, fraction
 * with trailing zeros dropped (no dot when it is zero). Undefined when Go could not parse it.
 */
export function goUtcTimestamp(text: string): string | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac = "", zone, sign, oh = "0", om = "0"] = m;
  const [year, month, day] = [Number(y), Number(mo), Number(d)];
  const daysInMonth =
    new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !leap(year) ? 1 : 0);
  // Go's time.Parse refuses out-of-range fields instead of rolling them over.
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) return undefined;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59 || Number(oh) > 23 || Number(om) > 59)
    return undefined;
  const offsetMinutes = zone === "Z" ? 0 : (sign === "-" ? -1 : 1) * (Number(oh) * 60 + Number(om));
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(Number(h), Number(mi) - offsetMinutes, Number(s), 0);
  const utcYear = date.getUTCFullYear();
  if (utcYear < 0 || utcYear > 9999) return undefined;
  const fraction = frac.padEnd(9, "0").replace(/0+$/, "");
  // toISOString: 2026-01-02T03:04:05.000Z (four-digit years in this range).
  return `${date.toISOString().slice(0, 19)}${fraction ? `.${fraction}` : ""}Z`;
}

function leap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Go's encoding/json string: HTML-safe escaping (<, >, & as \u00XX), \u2028/\u2029 escaped. */
export function goJsonString(value: string): string {
  let out = '"';
  for (const ch of value) {
    const c = ch.codePointAt(0) as number;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (c < 0x20 || ch === "<" || ch === ">" || ch === "&") out += goControlEscape(ch, c);
    else if (c === 0x2028 || c === 0x2029) out += `\\u${c.toString(16)}`;
    else if (c >= 0xd800 && c <= 0xdfff)
      out += "\ufffd"; // Go decodes a lone surrogate as U+FFFD
    else out += ch;
  }
  return `${out}"`;
}

function goControlEscape(ch: string, c: number): string {
  switch (ch) {
    case "\b":
      return "\\b";
    case "\f":
      return "\\f";
    case "\n":
      return "\\n";
    case "\r":
      return "\\r";
    case "\t":
      return "\\t";
    default:
      return `\\u00${c.toString(16).padStart(2, "0")}`;
  }
}

/** Go sorts map keys by their UTF-8 bytes. */
function goSortedKeys(obj: Record<string, string>): string[] {
  return Object.keys(obj).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** The D18 hash (Go's legacyHash). `utc` is goUtcTimestamp(entry.timestamp). */
export function goD18Hash(e: GoAuditEntry, utc: string): string {
  return sha256Hex(
    `${utc}|${e.tool ?? ""}|${e.args ?? ""}|${e.agent_id ?? ""}|${e.outcome ?? ""}|${e.prev_hash}`,
  );
}

/** The v2 hash: Go's json.Marshal of canonicalEntry, field order fixed by the Go struct. */
export function goV2Hash(e: GoAuditEntry, utc: string): string {
  const s = goJsonString;
  let json = `{"version":${e.version},"id":${s(e.id ?? "")},"timestamp":${s(utc)}`;
  json += `,"phase":${s(e.phase ?? "")},"request_id":${s(e.request_id ?? "")}`;
  json += `,"principal_id":${s(e.principal_id ?? "")},"transport":${s(e.transport ?? "")}`;
  json += `,"kb":${s(e.kb ?? "")},"tool":${s(e.tool ?? "")}`;
  if (e.external_tool) json += `,"external_tool":${s(e.external_tool)}`;
  json += `,"read_only":${e.read_only === true}`;
  const resources = e.resources ?? {};
  const keys = goSortedKeys(resources);
  if (keys.length > 0)
    json += `,"resources":{${keys.map((k) => `${s(k)}:${s(resources[k] as string)}`).join(",")}}`;
  json += `,"outcome":${s(e.outcome ?? "")},"duration_ms":${e.duration_ms ?? 0}`;
  if (e.commit_sha) json += `,"commit_sha":${s(e.commit_sha)}`;
  json += `,"prev_hash":${s(e.prev_hash)}}`;
  return sha256Hex(json);
}

const STRING_FIELDS = [
  "id",
  "timestamp",
  "phase",
  "request_id",
  "principal_id",
  "transport",
  "kb",
  "tool",
  "external_tool",
  "args",
  "agent_id",
  "outcome",
  "commit_sha",
  "prev_hash",
  "hash",
  "sig",
] as const;

/**
 * Why Go would not have written (or could not read) this line, or undefined. The rules are Go's
 * VerifyAudit ones: types as encoding/json decodes them, a parseable timestamp, and for v2 an id,
 * a phase and the outcome that goes with it.
 */
export function goShapeError(e: Record<string, unknown>, format: LineFormat): string | undefined {
  for (const f of STRING_FIELDS)
    if (e[f] !== undefined && e[f] !== null && typeof e[f] !== "string")
      return `${f} is not a string`;
  if (e.read_only !== undefined && e.read_only !== null && typeof e.read_only !== "boolean")
    return "read_only is not a boolean";
  if (e.duration_ms !== undefined && e.duration_ms !== null && !Number.isSafeInteger(e.duration_ms))
    return "duration_ms is not an integer";
  if (e.resources !== undefined && e.resources !== null) {
    const r = e.resources;
    if (typeof r !== "object" || Array.isArray(r)) return "resources is not an object";
    if (Object.values(r).some((v) => typeof v !== "string")) return "a resource is not a string";
  }
  if (typeof e.timestamp !== "string" || goUtcTimestamp(e.timestamp) === undefined)
    return "timestamp is not RFC 3339";
  if (!isHashHex(e.hash)) return SHAPE.hash;
  if (typeof e.prev_hash !== "string") return "missing prev_hash";
  if (e.sig !== undefined && e.sig !== "" && !isSigHex(e.sig)) return SHAPE.sig;
  if (format === "go-v2") {
    if (typeof e.id !== "string" || e.id === "") return "missing id";
    if (e.phase !== "attempt" && e.phase !== "completion") return SHAPE.phase;
    if (e.phase === "attempt" && e.outcome) return "an attempt carries an outcome";
    if (e.phase === "completion" && !GO_OUTCOMES.has(e.outcome as string))
      return "completion outcome is not one Go writes";
  }
  return undefined;
}
