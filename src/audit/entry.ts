/**
 * Audit entry shape and the hash/signature byte rule (D18, D119). Pure: no file or network
 * access. docs/audit.md restates the rule so a third party can verify a log without our code.
 */
import { createHash, createPublicKey, type KeyObject, sign, verify } from "node:crypto";
import {
  ed25519PrivateKey,
  ed25519RawPublicKey,
  ed25519Spki,
} from "../common/provisioning/ed25519.js";
import type { AuditOutcome, AuditPhase, AuditRecordInput } from "./types.js";

export const AUDIT_ENTRY_VERSION = 1;
/** `prev_hash` of the very first entry of a chain. */
export const GENESIS = "genesis";

export interface AuditEntry {
  version: number;
  id: string;
  timestamp: string;
  phase: AuditPhase;
  request_id: string;
  principal_id: string;
  transport: AuditRecordInput["transport"];
  kb: string;
  tool: string;
  read_only: boolean;
  resources: Record<string, unknown>;
  outcome?: AuditOutcome;
  duration_ms?: number;
  commit_sha?: string | null;
  prev_hash: string;
  hash: string;
  sig?: string;
}

/** An entry before it is chained: everything except prev_hash, hash and sig. */
export type UnchainedEntry = Omit<AuditEntry, "prev_hash" | "hash" | "sig">;

const HEX64 = /^[0-9a-f]{64}$/;
const HEX128 = /^[0-9a-f]{128}$/;

/** Shape problems every line format shares (verify's "malformed entry" details). */
export const SHAPE = {
  hash: "hash is not 64 lowercase hex",
  sig: "sig is not 128 lowercase hex",
  phase: "phase is neither attempt nor completion",
} as const;

export function isHashHex(value: unknown): value is string {
  return typeof value === "string" && HEX64.test(value);
}

export function isSigHex(value: unknown): value is string {
  return typeof value === "string" && HEX128.test(value);
}

/**
 * The canonical bytes the hash covers: the entry without `hash` and `sig`, serialized as
 * RFC 8785 (JCS) JSON — object keys sorted by UTF-16 code units at every depth, no whitespace,
 * strings and numbers as ECMAScript JSON.stringify writes them — encoded as UTF-8.
 * Fields absent from the entry are absent from the bytes; unknown fields are included.
 */
export function canonicalize(entry: Record<string, unknown>): string {
  // Fast path: when every object's own key order is already UTF-16 sorted (true of every line
  // we write, and of JSON.parse output of such a line), native JSON.stringify emits exactly the
  // RFC 8785 bytes: same key order, same string and number forms.
  if (keysSortedDeep(entry)) {
    const { hash: _hash, sig: _sig, ...rest } = entry;
    return JSON.stringify(rest);
  }
  return canonicalObject(entry, true);
}

/** True when Object.keys order (the order JSON.stringify uses) is sorted at every depth. */
function keysSortedDeep(value: unknown): boolean {
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value !== "object" || value === null) return typeof value !== "undefined";
  if (Array.isArray(value)) {
    for (const v of value) if (v === undefined || !keysSortedDeep(v)) return false;
    return true;
  }
  const obj = value as Record<string, unknown>;
  let prev: string | undefined;
  for (const key in obj) {
    if (prev !== undefined && prev >= key) return false;
    prev = key;
    const v = obj[key];
    if (typeof v === "string" || typeof v === "boolean") continue;
    if (!keysSortedDeep(v)) return false;
  }
  return true;
}

/** RFC 8785 serialization of a JSON value (also used for the checkpoint index). */
export function canonicalJson(value: unknown): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "number":
      if (!Number.isFinite(value))
        throw new Error(`audit: cannot canonicalize non-finite number ${value}`);
      return JSON.stringify(value);
    case "object": {
      if (!Array.isArray(value)) return canonicalObject(value as Record<string, unknown>, false);
      let out = "[";
      for (let i = 0; i < value.length; i++) {
        if (i > 0) out += ",";
        out += value[i] === undefined ? "null" : canonicalJson(value[i]);
      }
      return `${out}]`;
    }
    default:
      throw new Error(`audit: cannot canonicalize a value of type ${typeof value}`);
  }
}

// Hand-rolled rather than map/join: verification throughput is dominated by this function.
function canonicalObject(obj: Record<string, unknown>, skipHashAndSig: boolean): string {
  const keys = sortedKeys(obj);
  let out = "{";
  let first = true;
  for (const key of keys) {
    const v = obj[key];
    if (v === undefined) continue;
    if (skipHashAndSig && (key === "hash" || key === "sig")) continue;
    if (!first) out += ",";
    first = false;
    out += quotedKey(key);
    out += typeof v === "string" ? JSON.stringify(v) : canonicalJson(v);
  }
  return `${out}}`;
}

/** Keys in UTF-16 order; lines we write are already in that order, so usually no sort runs. */
function sortedKeys(obj: Record<string, unknown>): string[] {
  const keys = Object.keys(obj);
  for (let i = 1; i < keys.length; i++) {
    if ((keys[i - 1] as string) > (keys[i] as string)) return keys.sort();
  }
  return keys;
}

const quoted = new Map<string, string>();
function quotedKey(key: string): string {
  let q = quoted.get(key);
  if (q === undefined) {
    q = `${JSON.stringify(key)}:`;
    if (quoted.size < 1024) quoted.set(key, q);
  }
  return q;
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** Lowercase hex sha256 of the UTF-8 canonical bytes. */
export function computeHash(entry: Record<string, unknown>): string {
  return sha256Hex(canonicalize(entry));
}

/** Chains an entry: sets prev_hash, hash and (with a signer) sig. */
export function chainEntry(
  entry: UnchainedEntry,
  prevHash: string,
  signer?: AuditSigner,
): AuditEntry {
  const unsorted: Record<string, unknown> = { ...entry, prev_hash: prevHash };
  const hash = computeHash(unsorted);
  if (signer) unsorted.sig = signer.sign(hash);
  unsorted.hash = hash;
  // Members in sorted order: the written line then needs no sort when verified.
  const chained: Record<string, unknown> = {};
  for (const key of Object.keys(unsorted).sort()) chained[key] = unsorted[key];
  return chained as unknown as AuditEntry;
}

/** Builds the unchained entry for a surface record. */
export function entryFromRecord(
  record: AuditRecordInput,
  id: string,
  timestamp: string,
): UnchainedEntry {
  const entry: UnchainedEntry = {
    version: AUDIT_ENTRY_VERSION,
    id,
    timestamp,
    phase: record.phase,
    request_id: record.request_id,
    principal_id: record.principal_id,
    transport: record.transport,
    kb: record.kb,
    tool: record.tool,
    read_only: record.read_only,
    // A JSON round trip, so what is hashed is exactly what a verifier will parse back.
    resources: JSON.parse(JSON.stringify(record.resources ?? {})) as Record<string, unknown>,
  };
  if (record.outcome !== undefined) entry.outcome = record.outcome;
  if (record.duration_ms !== undefined) entry.duration_ms = record.duration_ms;
  if (record.commit_sha !== undefined) entry.commit_sha = record.commit_sha;
  return entry;
}

// --- Ed25519 ---------------------------------------------------------------------------------

const SEED_ERROR =
  "audit.key_seed / CARTOGRAPHER_AUDIT_KEY must be exactly 64 hexadecimal characters (a 32-byte Ed25519 seed); fix or unset the setting";

function seedKey(seedHex: string): KeyObject {
  if (typeof seedHex !== "string" || !HEX64.test(seedHex.toLowerCase()))
    throw new Error(SEED_ERROR);
  return ed25519PrivateKey(Buffer.from(seedHex, "hex"));
}

/** Throws (naming the setting, never echoing the value) unless `seedHex` is a 64-hex seed. */
export function validateKeySeed(seedHex: string): void {
  seedKey(seedHex);
}

/** The raw 32-byte Ed25519 public key as lowercase hex. */
export function publicKeyFromSeed(seedHex: string): string {
  return ed25519RawPublicKey(seedKey(seedHex)).toString("hex");
}

/** Lowercase hex Ed25519 signature over the ASCII bytes of the hex hash string. */
export function signHash(seedHex: string, hash: string): string {
  return createSigner(seedHex).sign(hash);
}

export function verifySig(publicKeyHex: string, hash: string, sig: string): boolean {
  return createVerifier(publicKeyHex).verify(hash, sig);
}

export interface AuditSigner {
  readonly publicKeyHex: string;
  sign(hash: string): string;
}

export interface AuditVerifier {
  verify(hash: string, sig: string): boolean;
  /** Same check on libuv's thread pool, so a verifier can use every core. */
  verifyAsync(hash: string, sig: string): Promise<boolean>;
}

/** A signer that parses the key once (signing a batch must not re-import it per entry). */
export function createSigner(seedHex: string): AuditSigner {
  const key = seedKey(seedHex);
  return {
    publicKeyHex: publicKeyFromSeed(seedHex),
    sign: (hash) => sign(null, Buffer.from(hash, "ascii"), key).toString("hex"),
  };
}

const PUBLIC_KEY_ERROR =
  "audit public key must be exactly 64 hexadecimal characters (a raw Ed25519 public key)";

/** DER SubjectPublicKeyInfo of a raw 64-hex Ed25519 public key (throws on a malformed one). */
export function publicKeySpki(publicKeyHex: string): Buffer {
  if (typeof publicKeyHex !== "string" || !HEX64.test(publicKeyHex.toLowerCase()))
    throw new Error(PUBLIC_KEY_ERROR);
  return ed25519Spki(Buffer.from(publicKeyHex, "hex"));
}

export function createVerifier(publicKeyHex: string): AuditVerifier {
  const key = createPublicKey({ key: publicKeySpki(publicKeyHex), format: "der", type: "spki" });
  return {
    verify: (hash, sig) => {
      if (!isSigHex(sig)) return false;
      return verify(null, Buffer.from(hash, "ascii"), key, Buffer.from(sig, "hex"));
    },
    verifyAsync: (hash, sig) =>
      new Promise((resolve) => {
        if (!isSigHex(sig)) return resolve(false);
        verify(null, Buffer.from(hash, "ascii"), key, Buffer.from(sig, "hex"), (err, ok) =>
          resolve(!err && ok),
        );
      }),
  };
}
