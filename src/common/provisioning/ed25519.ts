/**
 * Raw Ed25519 keys ↔ node:crypto KeyObjects (RFC 8410 DER wrapping): the one place that knows
 * the PKCS#8 and SPKI prefixes, for the audit signature and the artifact signature alike.
 * Pure (node:crypto only). Callers validate the hex first, so their messages name their setting.
 */
import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";

// DER prefixes of a raw 32-byte Ed25519 seed (PKCS#8) and public key (SPKI), RFC 8410.
const PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

/** The private key of a raw 32-byte seed. */
export function ed25519PrivateKey(seed: Buffer): KeyObject {
  return createPrivateKey({
    key: Buffer.concat([PKCS8_PREFIX, seed]),
    format: "der",
    type: "pkcs8",
  });
}

/** DER SubjectPublicKeyInfo of a raw 32-byte public key. */
export function ed25519Spki(raw: Buffer): Buffer {
  return Buffer.concat([SPKI_PREFIX, raw]);
}

/** The public key of a raw 32-byte public key. */
export function ed25519PublicKey(raw: Buffer): KeyObject {
  return createPublicKey({ key: ed25519Spki(raw), format: "der", type: "spki" });
}

/** The raw 32-byte public key of a private (or public) key. */
export function ed25519RawPublicKey(key: KeyObject): Buffer {
  const der = createPublicKey(key).export({ format: "der", type: "spki" });
  return der.subarray(der.length - 32);
}
