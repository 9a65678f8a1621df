import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  canonicalize,
  canonicalJson,
  chainEntry,
  computeHash,
  entryFromRecord,
  GENESIS,
  publicKeyFromSeed,
  signHash,
  validateKeySeed,
  verifySig,
} from "../../src/audit/entry.js";
import { OTHER_SEED, record, SEED } from "./helpers.js";

describe("audit entry byte rule", () => {
  it("canonical form sorts keys at every depth, has no whitespace and omits hash and sig", () => {
    const text = canonicalize({
      b: 1,
      a: { z: "x", y: [true, null] },
      hash: "h",
      sig: "s",
      c: undefined,
    });
    expect(text).toBe('{"a":{"y":[true,null],"z":"x"},"b":1}');
  });

  it("hash is sha256 of the canonical UTF-8 bytes, independent of key order and of hash/sig", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (obj) => {
        const reversed = Object.fromEntries(Object.entries(obj).reverse());
        expect(computeHash(reversed)).toBe(computeHash(obj));
        expect(computeHash({ ...obj, hash: "x", sig: "y" })).toBe(computeHash(obj));
        // Parsing the canonical text and re-canonicalizing is a fixed point.
        const canon = canonicalize(obj);
        expect(canonicalize(JSON.parse(canon))).toBe(canon);
      }),
      { numRuns: 200 },
    );
  });

  it("a chained entry signs and verifies, and fails under another key or another hash", () => {
    const e = chainEntry(entryFromRecord(record("r1"), "id1", "2025-01-01T00:00:00.000Z"), GENESIS);
    expect(e.prev_hash).toBe(GENESIS);
    expect(e.hash).toBe(computeHash(e as unknown as Record<string, unknown>));
    const sig = signHash(SEED, e.hash);
    expect(sig).toMatch(/^[0-9a-f]{128}$/);
    expect(verifySig(publicKeyFromSeed(SEED), e.hash, sig)).toBe(true);
    expect(verifySig(publicKeyFromSeed(OTHER_SEED), e.hash, sig)).toBe(false);
    expect(verifySig(publicKeyFromSeed(SEED), "0".repeat(64), sig)).toBe(false);
  });

  it("a bad seed names the setting and never echoes the value", () => {
    const secret = "zz-not-hex-secret-value";
    let message = "";
    try {
      validateKeySeed(secret);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain("audit.key_seed");
    expect(message).toContain("CARTOGRAPHER_AUDIT_KEY");
    expect(message).not.toContain(secret);
    expect(() => validateKeySeed("ab".repeat(31))).toThrow(/64 hexadecimal/);
  });
});

describe("canonicalize", () => {
  it("drops hash and sig only at the top level and otherwise equals the RFC 8785 serialization", () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.oneof(fc.string(), fc.constantFrom("hash", "sig", "10", "9")),
          fc.jsonValue(),
        ),
        (obj) => {
          const { hash: _h, sig: _s, ...rest } = obj;
          expect(canonicalize(obj)).toBe(canonicalJson(rest));
        },
      ),
      { numRuns: 300 },
    );
  });
});
