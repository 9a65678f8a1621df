/**
 * The pure rules of SOPS secrets (src/kb/core/secret-refs.ts): secret_refs parsing, which paths may
 * hold encrypted files, decrypted YAML flattened to JSON Pointers (Go D104), the `sops set`
 * selector of a pointer, and the ciphertext check after a set.
 */
import { describe, expect, it } from "vitest";
import {
  flattenSecrets,
  hasSopsMetadata,
  isEncryptedAt,
  legacyNames,
  parseSecretRef,
  secretDeclaration,
  secretsPath,
  sopsSelector,
} from "../../../src/kb/core/secret-refs.js";

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return (e as { code?: string }).code ?? "no code";
  }
  return "no error";
}

describe("secret_refs and secrets paths", () => {
  it("parses NAME=secrets/<file>.sops.yaml#/pointer", () => {
    expect(parseSecretRef("DB_PW=secrets/db.sops.yaml#/admin/0/password")).toEqual({
      name: "DB_PW",
      file: "secrets/db.sops.yaml",
      pointer: "/admin/0/password",
    });
  });

  it("refuses malformed entries, bad names and files outside secrets/*.sops.yaml", () => {
    for (const bad of [
      "no-equals",
      "=secrets/a.sops.yaml#/x",
      "1BAD=secrets/a.sops.yaml#/x",
      "A=secrets/a.sops.yaml",
      "A=secrets/a.sops.yaml#",
      "A=secrets/a.sops.yaml#x",
      "A=data/a.sops.yaml#/x",
      "A=secrets/../data/a.sops.yaml#/x",
      "A=secrets/a.yaml#/x",
      "A=/etc/secrets/a.sops.yaml#/x",
    ]) {
      expect(
        codeOf(() => parseSecretRef(bad)),
        bad,
      ).toBe("invalid_argument");
    }
  });

  it("secretsPath keeps a normalized secrets/ path and refuses escapes", () => {
    expect(secretsPath("secrets/./app.sops.yaml")).toBe("secrets/app.sops.yaml");
    for (const bad of [
      "secrets/../x.sops.yaml",
      "x.sops.yaml",
      "secrets/a.json",
      "/secrets/a.sops.yaml",
    ])
      expect(
        codeOf(() => secretsPath(bad)),
        bad,
      ).toBe("invalid_argument");
  });

  it("secret_refs wins over secrets_source; a duplicate name and no declaration are refused", () => {
    expect(
      secretDeclaration(
        {
          type: "Service",
          secret_refs: ["A=secrets/a.sops.yaml#/a"],
          secrets_source: "secrets/b.sops.yaml",
        },
        "services/x",
      ),
    ).toEqual({ kind: "refs", refs: [{ name: "A", file: "secrets/a.sops.yaml", pointer: "/a" }] });
    expect(
      secretDeclaration({ type: "Service", secrets_source: "secrets/b.sops.yaml" }, "s"),
    ).toEqual({
      kind: "source",
      file: "secrets/b.sops.yaml",
    });
    expect(
      codeOf(() =>
        secretDeclaration(
          { type: "S", secret_refs: ["A=secrets/a.sops.yaml#/a", "A=secrets/a.sops.yaml#/b"] },
          "s",
        ),
      ),
    ).toBe("invalid_argument");
    expect(codeOf(() => secretDeclaration({ type: "S" }, "s"))).toBe("invalid_argument");
    expect(codeOf(() => secretDeclaration({ type: "S", secret_refs: [] }, "s"))).toBe(
      "invalid_argument",
    );
  });
});

describe("decrypted YAML as JSON Pointers", () => {
  const decrypted = [
    "password: hunter2",
    "pin: 007",
    "enabled: true",
    "empty:",
    "tilde: ~",
    "a/b~c: escaped",
    "admin:",
    "  - client_secret: s1",
    "  - client_secret: s2",
    "dante_client:",
    "  DEV:",
    "    client_secret: d1",
    "",
  ].join("\n");

  it("flattens every scalar leaf, keeping the text as written (007, true) and null as empty", () => {
    const values = flattenSecrets(decrypted, "f");
    expect(Object.fromEntries(values)).toEqual({
      "/password": "hunter2",
      "/pin": "007",
      "/enabled": "true",
      "/empty": "",
      "/tilde": "",
      "/a~1b~0c": "escaped",
      "/admin/0/client_secret": "s1",
      "/admin/1/client_secret": "s2",
      "/dante_client/DEV/client_secret": "d1",
    });
  });

  it("legacy whole-file names: top-level keys bare, deeper leaves as pointers", () => {
    const names = legacyNames(flattenSecrets("pw: a\nnested:\n  k: b\n", "f"));
    expect(names).toEqual({ pw: "a", "/nested/k": "b" });
  });

  it("a YAML error names the file only, never the offending line", () => {
    try {
      flattenSecrets("pw: hunter2\npw: again\n", "decrypted secrets/a.sops.yaml");
      throw new Error("expected an error");
    } catch (e) {
      expect((e as Error).message).toBe("decrypted secrets/a.sops.yaml is not valid YAML");
    }
  });
});

describe("sops set selectors and the ciphertext check", () => {
  const encrypted = [
    "admin:",
    "    - client_secret: ENC[AES256_GCM,data:aa,iv:bb,tag:cc,type:str]",
    "db:",
    "    password: ENC[AES256_GCM,data:dd,iv:ee,tag:ff,type:str]",
    "sops:",
    "    version: 3.9.0",
    "",
  ].join("\n");

  it("builds the selector of an existing leaf and of a new last key", () => {
    expect(sopsSelector(encrypted, "/admin/0/client_secret", "f")).toBe(
      '["admin"][0]["client_secret"]',
    );
    expect(sopsSelector(encrypted, "/db/user", "f")).toBe('["db"]["user"]');
    expect(sopsSelector(encrypted, "/a~1b", "f")).toBe('["a/b"]');
  });

  it("refuses a missing parent, a bad index, a mapping target and the sops metadata", () => {
    for (const bad of ["/nope/x", "/admin/5/client_secret", "/admin/x", "/db", "/sops/version"])
      expect(
        codeOf(() => sopsSelector(encrypted, bad, "f")),
        bad,
      ).toBe("invalid_argument");
  });

  it("knows sops metadata and ciphertext leaves", () => {
    expect(hasSopsMetadata(encrypted, "f")).toBe(true);
    expect(hasSopsMetadata("db:\n  password: plain\n", "f")).toBe(false);
    expect(isEncryptedAt(encrypted, "/db/password", "f")).toBe(true);
    expect(isEncryptedAt("db:\n  password: plain\n", "/db/password", "f")).toBe(false);
    expect(isEncryptedAt(encrypted, "/db/missing", "f")).toBe(false);
  });
});
