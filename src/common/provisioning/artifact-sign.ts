/**
 * The byte rules of provisioning artifacts (docs/provisioning.md "Byte rules"): the content hash
 * of an artifact's files, the Ed25519 signature over a domain-tagged envelope, the key id and the
 * manifest revision. Pure (node:crypto only); the one owner of these rules, server and client.
 *
 * Every variable-length field is length-prefixed (8-byte big-endian) so no two different inputs
 * share bytes, and every digest starts with its own domain tag so a hash or signature made for
 * one purpose can never be replayed as another.
 */
import { createHash, type KeyObject, sign, verify } from "node:crypto";
import { ed25519PrivateKey, ed25519PublicKey, ed25519RawPublicKey } from "./ed25519.js";

export const CONTENT_DOMAIN = "cartographer:artifact-content:v1";
export const ENVELOPE_DOMAIN = "cartographer:provisioning-artifact:v1";
export const REVISION_DOMAIN = "cartographer:provisioning-manifest:v1";
export const ENVELOPE_VERSION = 1;

export interface ArtifactFileBytes {
  /** POSIX path relative to the artifact (`SKILL.md`, `scripts/run.sh`). */
  path: string;
  executable: boolean;
  content: Uint8Array;
}

/** What a signature binds: everything a client acts on except the file bytes themselves. */
export interface ArtifactIdentity {
  source: string;
  kind: string;
  name: string;
  version: string;
  contentHash: string;
}

export interface ArtifactSignature {
  algorithm: "ed25519";
  key_id: string;
  envelope_version: number;
  /** base64 without padding. */
  value: string;
}

const HEX64 = /^[0-9a-f]{64}$/;

/** `lp(x)`: 8-byte big-endian length, then the bytes. */
function lp(data: string | Uint8Array): Buffer {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : Buffer.from(data);
  const len = Buffer.alloc(8);
  len.writeBigUInt64BE(BigInt(bytes.length));
  return Buffer.concat([len, bytes]);
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/** The content hash of an artifact: its files sorted by path, each path, exec flag and bytes. */
export function artifactContentHash(files: readonly ArtifactFileBytes[]): string {
  const h = createHash("sha256").update(lp(CONTENT_DOMAIN));
  for (const f of [...files].sort((a, b) => byteOrder(a.path, b.path))) {
    h.update(lp(f.path));
    h.update(Buffer.from([f.executable ? 1 : 0]));
    h.update(lp(f.content));
  }
  return h.digest("hex");
}

/** The bytes an artifact signature covers. */
export function signatureEnvelope(id: ArtifactIdentity): Buffer {
  if (!HEX64.test(id.contentHash)) {
    throw new Error("artifact content hash must be 64 lowercase hex characters");
  }
  return Buffer.concat(
    [ENVELOPE_DOMAIN, id.source, id.kind, id.name, id.version, id.contentHash].map((f) => lp(f)),
  );
}

/**
 * The manifest revision over the artifacts in manifest order. The signing key id is part of it
 * ("" when unsigned): a key rotation changes the revision, so a client re-verifies.
 */
export function manifestRevision(
  artifacts: readonly {
    kind: string;
    name: string;
    source: string;
    version: string;
    contentHash: string;
    keyId?: string;
  }[],
): string {
  const h = createHash("sha256").update(lp(REVISION_DOMAIN));
  for (const a of artifacts) {
    for (const f of [a.kind, a.name, a.source, a.version, a.contentHash, a.keyId ?? ""]) {
      h.update(lp(f));
    }
  }
  return h.digest("hex");
}

/** A signing key from a 64-hex seed. The message names the setting, never the value. */
export interface ArtifactSigner {
  keyId: string;
  publicKey: string;
  sign(id: ArtifactIdentity): ArtifactSignature;
}

export function artifactSigner(seedHex: string): ArtifactSigner {
  if (typeof seedHex !== "string" || !HEX64.test(seedHex.toLowerCase())) {
    throw new Error(
      "artifact_signing_seed must be exactly 64 hexadecimal characters (a 32-byte Ed25519 seed)",
    );
  }
  const key = ed25519PrivateKey(Buffer.from(seedHex, "hex"));
  const raw = ed25519RawPublicKey(key);
  const keyId = artifactKeyId(raw.toString("hex"));
  return {
    keyId,
    publicKey: raw.toString("hex"),
    sign: (id) => ({
      algorithm: "ed25519",
      key_id: keyId,
      envelope_version: ENVELOPE_VERSION,
      value: sign(null, signatureEnvelope(id), key).toString("base64").replace(/=+$/, ""),
    }),
  };
}

/** key id = sha256 hex of the 32-byte raw public key (given as 64 hex). */
export function artifactKeyId(publicKeyHex: string): string {
  return createHash("sha256").update(Buffer.from(publicKeyHex, "hex")).digest("hex");
}

/** Parsed public keys: a client verifies hundreds of artifacts with the same few pinned keys. */
const publicKeys = new Map<string, KeyObject>();

function publicKeyObject(publicKeyHex: string): KeyObject {
  const hex = publicKeyHex.toLowerCase();
  let key = publicKeys.get(hex);
  if (!key) {
    if (publicKeys.size >= 64) publicKeys.clear();
    key = ed25519PublicKey(Buffer.from(hex, "hex"));
    publicKeys.set(hex, key);
  }
  return key;
}

/**
 * True when `sig` is a valid signature of `id` by the pinned `publicKeyHex`: algorithm, envelope
 * version and key id must match too. Never throws on malformed input (a bad signature is false).
 */
export function verifyArtifactSignature(
  publicKeyHex: string,
  id: ArtifactIdentity,
  sig: ArtifactSignature | null | undefined,
): boolean {
  if (!sig || !HEX64.test(publicKeyHex.toLowerCase())) return false;
  if (sig.algorithm !== "ed25519" || sig.envelope_version !== ENVELOPE_VERSION) return false;
  if (sig.key_id !== artifactKeyId(publicKeyHex)) return false;
  if (!/^[A-Za-z0-9+/]{86}$/.test(sig.value)) return false;
  try {
    return verify(
      null,
      signatureEnvelope(id),
      publicKeyObject(publicKeyHex),
      Buffer.from(sig.value, "base64"),
    );
  } catch {
    return false;
  }
}
