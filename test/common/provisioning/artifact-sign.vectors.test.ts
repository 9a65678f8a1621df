/**
 * The byte rules of docs/provisioning.md, pinned by a vector a third party can reproduce: the
 * expected values are recomputed here from hand-built bytes (an independent implementation of
 * the rule), and the Ed25519 key is RFC 8032's test 1 key.
 */
import { createHash, createPublicKey, verify } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type ArtifactFileBytes,
  artifactContentHash,
  artifactKeyId,
  artifactSigner,
  manifestRevision,
  signatureEnvelope,
  verifyArtifactSignature,
} from "../../../src/common/provisioning/artifact-sign.js";

const enc = (s: string) => new TextEncoder().encode(s);
const FILES: ArtifactFileBytes[] = [
  { path: "scripts/run.sh", executable: true, content: enc("#!/bin/sh\necho hi\n") },
  { path: "SKILL.md", executable: false, content: enc("---\nname: demo\n---\nHello\n") },
];
const RFC8032_SEED = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const RFC8032_PUB = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";

// The documented vector (docs/provisioning.md "Test vector").
const CONTENT_HASH = "1f7e229c93a1528073f4f8c03c02c91eb1be2d0ddb9ca5b2b012917b0166dc40";
const KEY_ID = "21fe31dfa154a261626bf854046fd2271b7bed4b6abe45aa58877ef47f9721b9";
const SIGNATURE =
  "MsSa2VjOlw57py+mCP9mwGKanw8p6DQIntD3SinYdlMKS873XavaxPT0Ncvugt5cPo4SNzjbsPeEG7rXYXNYBQ";
const REVISION = "ea2d81bc841db8c7dcc6bd2ae8b35421177aef97acb5911847e29e1603225ca1";
const IDENTITY = {
  source: "kb:demo",
  kind: "skill",
  name: "demo",
  version: "1",
  contentHash: CONTENT_HASH,
};

function lpHand(s: string): string {
  const b = Buffer.from(s, "utf8");
  return b.length.toString(16).padStart(16, "0") + b.toString("hex");
}

describe("artifact byte rules", () => {
  it("content hash = sha256 over the domain tag and each file (sorted by path): lp(path), flag byte, lp(content)", () => {
    const hand = Buffer.from(
      lpHand("cartographer:artifact-content:v1") +
        lpHand("SKILL.md") +
        "00" +
        lpHand("---\nname: demo\n---\nHello\n") +
        lpHand("scripts/run.sh") +
        "01" +
        lpHand("#!/bin/sh\necho hi\n"),
      "hex",
    );
    expect(createHash("sha256").update(hand).digest("hex")).toBe(CONTENT_HASH);
    expect(artifactContentHash(FILES)).toBe(CONTENT_HASH);
  });

  it("the exec flag, a path and a byte of content each change the hash", () => {
    const flipped = FILES.map((f) => ({ ...f, executable: !f.executable }));
    expect(artifactContentHash(flipped)).not.toBe(CONTENT_HASH);
    expect(
      artifactContentHash([
        { ...(FILES[0] as ArtifactFileBytes), path: "scripts/run2.sh" },
        FILES[1] as ArtifactFileBytes,
      ]),
    ).not.toBe(CONTENT_HASH);
    // Moving bytes between path and content cannot collide (length prefixes).
    const a = artifactContentHash([{ path: "ab", executable: false, content: enc("c") }]);
    const b = artifactContentHash([{ path: "a", executable: false, content: enc("bc") }]);
    expect(a).not.toBe(b);
  });

  it("the hash does not depend on the order files are given in", () => {
    fc.assert(
      fc.property(fc.shuffledSubarray(FILES, { minLength: 2, maxLength: 2 }), (files) => {
        expect(artifactContentHash(files)).toBe(CONTENT_HASH);
      }),
    );
  });

  it("signature: RFC 8032 key, key id = sha256(raw public key), Ed25519 over the lp envelope", () => {
    const signer = artifactSigner(RFC8032_SEED);
    expect(signer.publicKey).toBe(RFC8032_PUB);
    expect(signer.keyId).toBe(KEY_ID);
    expect(artifactKeyId(RFC8032_PUB)).toBe(
      createHash("sha256").update(Buffer.from(RFC8032_PUB, "hex")).digest("hex"),
    );
    const envelope = Buffer.from(
      ["cartographer:provisioning-artifact:v1", "kb:demo", "skill", "demo", "1", CONTENT_HASH]
        .map(lpHand)
        .join(""),
      "hex",
    );
    expect(signatureEnvelope(IDENTITY).equals(envelope)).toBe(true);
    const sig = signer.sign(IDENTITY);
    expect(sig).toEqual({
      algorithm: "ed25519",
      key_id: KEY_ID,
      envelope_version: 1,
      value: SIGNATURE,
    });
    // Verified with nothing but node:crypto and the raw public key.
    const spki = Buffer.concat([
      Buffer.from("302a300506032b6570032100", "hex"),
      Buffer.from(RFC8032_PUB, "hex"),
    ]);
    const pub = createPublicKey({ key: spki, format: "der", type: "spki" });
    expect(verify(null, envelope, pub, Buffer.from(SIGNATURE, "base64"))).toBe(true);
  });

  it("verify accepts the vector and refuses any changed field, key id or value", () => {
    const sig = artifactSigner(RFC8032_SEED).sign(IDENTITY);
    expect(verifyArtifactSignature(RFC8032_PUB, IDENTITY, sig)).toBe(true);
    for (const field of ["source", "kind", "name", "version"] as const) {
      expect(verifyArtifactSignature(RFC8032_PUB, { ...IDENTITY, [field]: "x" }, sig)).toBe(false);
    }
    const otherHash = artifactContentHash([FILES[1] as ArtifactFileBytes]);
    expect(verifyArtifactSignature(RFC8032_PUB, { ...IDENTITY, contentHash: otherHash }, sig)).toBe(
      false,
    );
    const other = artifactSigner("11".repeat(32));
    expect(verifyArtifactSignature(other.publicKey, IDENTITY, sig)).toBe(false);
    expect(verifyArtifactSignature(RFC8032_PUB, IDENTITY, { ...sig, key_id: other.keyId })).toBe(
      false,
    );
    expect(verifyArtifactSignature(RFC8032_PUB, IDENTITY, null)).toBe(false);
    expect(verifyArtifactSignature(RFC8032_PUB, IDENTITY, { ...sig, value: "AAAA" })).toBe(false);
  });

  it("revision = sha256 over the domain tag and lp(kind, name, source, version, hash, key id) per artifact", () => {
    const hand = Buffer.from(
      [
        "cartographer:provisioning-manifest:v1",
        "skill",
        "demo",
        "kb:demo",
        "1",
        CONTENT_HASH,
        KEY_ID,
      ]
        .map(lpHand)
        .join(""),
      "hex",
    );
    expect(createHash("sha256").update(hand).digest("hex")).toBe(REVISION);
    expect(manifestRevision([{ ...IDENTITY, keyId: KEY_ID }])).toBe(REVISION);
    // Unsigned (key id "") or another key: another revision, so a client re-verifies.
    expect(manifestRevision([IDENTITY])).not.toBe(REVISION);
    expect(manifestRevision([{ ...IDENTITY, keyId: "0".repeat(64) }])).not.toBe(REVISION);
  });

  it("a bad seed is refused naming the setting, never echoing the value", () => {
    expect(() => artifactSigner("zz-secret-value")).toThrow(/artifact_signing_seed/);
    expect(() => artifactSigner("zz-secret-value")).not.toThrow(/zz-secret-value/);
  });
});
