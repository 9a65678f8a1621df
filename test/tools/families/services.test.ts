/**
 * service_get / service_list through the MCP surface (SDK Client, temp KB): what they return,
 * who may see what, and the not_configured answers of the secret tools when the KB has no
 * `sops_age_key_file` or the server has no sops binary.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { principal } from "../../support/mcp-kit.js";
import { okJson, type ServicesKb, servicesKb, textOf } from "../../support/services-kb.js";
import { useTempDirs } from "../../support/temp-dir.js";

describe("service_list and service_get", () => {
  let kb: ServicesKb;
  beforeAll(async () => {
    kb = await servicesKb();
  });
  afterAll(async () => kb.cleanup());

  it("service_list lists every type: Service concept with its title and status", async () => {
    const out = okJson(await kb.call("service_list"));
    expect(out).toEqual({
      services: [
        { id: "services/db", title: "Database", status: null },
        { id: "services/keycloak", title: "Keycloak", status: "active" },
      ],
      total: 2,
      truncated: false,
    });
  });

  it("service_list shows only what the caller may see (a map-only role sees none)", async () => {
    const reader = principal("reader", [{ kb: "test", access: "r" }]);
    const mapOnly = principal("map-only", [{ kb: "test", access: "r", maps: ["notes"] }]);
    expect((okJson(await kb.call("service_list", {}, reader)).services as unknown[]).length).toBe(
      2,
    );
    expect(okJson(await kb.call("service_list", {}, mapOnly))).toEqual({
      services: [],
      total: 0,
      truncated: false,
    });
  });

  it("service_get returns the descriptor: frontmatter (secret_refs as written) and body", async () => {
    const out = okJson(await kb.call("service_get", { id: "services/keycloak" }));
    expect(out.id).toBe("services/keycloak");
    expect(out.path).toBe("services/keycloak.md");
    expect(out.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(out.frontmatter).toMatchObject({
      type: "Service",
      kind: "idp",
      secret_refs: ["ADMIN_PASSWORD=secrets/keycloak.sops.yaml#/admin/password"],
    });
    expect(out.body).toBe("\nThe identity provider.\n");
    expect(out).not.toHaveProperty("secrets");
  });

  it("service_get refuses a concept that is not a Service, and a missing id is not_found", async () => {
    const note = await kb.call("service_get", { id: "notes/plain" });
    expect(note.isError).toBe(true);
    expect(textOf(note)).toMatch(/^invalid_argument: notes\/plain has type note, not Service/);
    const missing = await kb.call("service_get", { id: "services/none" });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/^not_found: /);
  });

  it("resolving secrets without kbs[].sops_age_key_file is not_configured, naming the key", async () => {
    for (const [tool, args] of [
      ["service_get", { id: "services/keycloak", resolve_secrets: true }],
      ["secret_resolve", { id: "services/keycloak" }],
      ["secret_set", { path: "secrets/keycloak.sops.yaml", key: "/admin/password", value: "x" }],
    ] as const) {
      const res = await kb.call(tool, args);
      expect(res.isError, tool).toBe(true);
      expect(textOf(res)).toBe(
        "not_configured: secrets are not configured for KB test: set kbs[].sops_age_key_file to an age key file that can decrypt its secrets/*.sops.yaml, and install the sops binary on the server",
      );
    }
  });

  it("service_get with resolve_secrets needs whole-KB rw: KB-wide r plus rw on Services is forbidden", async () => {
    // Without the rw whole-KB requirement this principal would pass (its rw rule covers the
    // Service, its r rule is selector-free) and reach the sops step.
    const who = principal("svc-writer", [
      { kb: "test", access: "r" },
      { kb: "test", access: "rw", types: ["Service"] },
    ]);
    const read = await kb.call("service_get", { id: "services/keycloak" }, who);
    expect(read.isError).toBeFalsy();
    const resolve = await kb.call(
      "service_get",
      { id: "services/keycloak", resolve_secrets: true },
      who,
    );
    expect(textOf(resolve)).toBe("forbidden");
    const secret = await kb.call("secret_resolve", { id: "services/keycloak" }, who);
    expect(textOf(secret)).toBe("forbidden");
  });

  it("a read-only token reads descriptors but never resolves", async () => {
    const reader = principal("reader", [{ kb: "test", access: "r" }]);
    expect((await kb.call("service_get", { id: "services/db" }, reader)).isError).toBeFalsy();
    const res = await kb.call("service_get", { id: "services/db", resolve_secrets: true }, reader);
    expect(textOf(res)).toBe("forbidden");
  });

  it("Go's argument names still work: service_id, concept_id (aliases of id)", async () => {
    const out = okJson(await kb.call("service_get", { service_id: "services/db" }));
    expect(out.id).toBe("services/db");
    const res = await kb.call("secret_resolve", { concept_id: "services/keycloak" });
    expect(textOf(res)).toMatch(/^not_configured: secrets are not configured for KB test/);
  });

  it("the audit records the service id and the resolve flag", async () => {
    await kb.call("service_get", { id: "services/db", resolve_secrets: true });
    const last = kb.audit.records.filter((r) => r.tool === "service_get").at(-1);
    expect(last?.resources).toEqual({ id: "services/db", resolve_secrets: true });
  });
});

describe("a KB with sops_age_key_file on a server without sops", () => {
  const newDir = useTempDirs("carto-no-sops-", "file");
  let kb: ServicesKb;
  let emptyPath: string;
  beforeAll(async () => {
    emptyPath = newDir();
    const keyFile = join(emptyPath, "age.key");
    await writeFile(keyFile, "# not a real key: sops never runs here\n");
    kb = await servicesKb({
      files: {
        "services/keycloak.md":
          "---\ntype: Service\ntitle: Keycloak\nsecret_refs: [PW=secrets/keycloak.sops.yaml#/pw]\n---\n",
        "secrets/keycloak.sops.yaml":
          "pw: ENC[AES256_GCM,data:xx,iv:yy,tag:zz,type:str]\nsops:\n  version: 3.9.0\n",
      },
      // A PATH with no sops on it: the lookup fails exactly as on a server without sops.
      sops: () => ({ ageKeyFile: keyFile, env: { PATH: emptyPath } }),
    });
  });
  afterAll(async () => {
    await kb.cleanup();
  });

  it("every secret tool answers not_configured naming the sops binary", async () => {
    for (const [tool, args] of [
      ["service_get", { id: "services/keycloak", resolve_secrets: true }],
      ["secret_resolve", { id: "services/keycloak" }],
      ["secret_set", { path: "secrets/keycloak.sops.yaml", key: "/pw", value: "x" }],
    ] as const) {
      const res = await kb.call(tool, args);
      expect(textOf(res), tool).toBe(
        "not_configured: the sops binary is not on the server's PATH: install sops to use the secret tools",
      );
    }
  });

  it("secret_set refuses paths outside secrets/*.sops.yaml before anything runs", async () => {
    for (const path of [
      "data/index.md",
      "secrets/../data/index.md",
      "secrets/plain.yaml",
      "/etc/passwd",
    ]) {
      const res = await kb.call("secret_set", { path, key: "/pw", value: "x" });
      expect(textOf(res), path).toMatch(/^invalid_argument: /);
    }
  });

  it("secret_set refuses a key that is not a JSON Pointer", async () => {
    const res = await kb.call("secret_set", {
      path: "secrets/keycloak.sops.yaml",
      key: "pw",
      value: "x",
    });
    expect(textOf(res)).toBe(
      'invalid_argument: key "pw" must be a JSON Pointer beginning with a slash, like the pointers of secret_refs',
    );
  });
});
