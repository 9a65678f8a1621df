/**
 * Builds `artifact_manifest` answers as the server does (docs/provisioning.md), from the same
 * byte rules (src/common/provisioning/artifact-sign.ts), so a test can make a valid answer and then break one
 * field of it.
 */

import type { McpSession } from "../../../src/client/mcp-session.js";
import {
  type ArtifactSigner,
  artifactContentHash,
  artifactSigner,
  manifestRevision,
} from "../../../src/common/provisioning/artifact-sign.js";

/** RFC 8032 test 1 (docs/provisioning.md "Test vector"). */
export const SEED = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
export const PUBLIC_KEY = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
export const KEY_ID = "21fe31dfa154a261626bf854046fd2271b7bed4b6abe45aa58877ef47f9721b9";
/** RFC 8032 test 2: another key, for "signed by someone else". */
export const OTHER_SEED = "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb";

export interface FileSpec {
  path: string;
  content: string | Buffer;
  executable?: boolean;
}

export interface ArtifactSpec {
  kind: string;
  name: string;
  source?: string;
  version?: string;
  files: FileSpec[];
}

export type WireArtifact = Record<string, unknown> & { files: Record<string, unknown>[] };
export type WireManifest = Record<string, unknown> & { artifacts: WireArtifact[] };

const STRICT = new TextDecoder("utf-8", { fatal: true });

function wireFile(f: FileSpec): Record<string, unknown> {
  const bytes = Buffer.isBuffer(f.content) ? f.content : Buffer.from(f.content, "utf8");
  const base = { path: f.path, executable: f.executable ?? false, size: bytes.length };
  try {
    return { ...base, content: STRICT.decode(bytes) };
  } catch {
    return { ...base, content_base64: bytes.toString("base64") };
  }
}

/** One manifest answer for `kb`; KB artifacts signed when `seed` is given. */
export function wireManifest(kb: string, specs: ArtifactSpec[], seed?: string): WireManifest {
  const signer: ArtifactSigner | null = seed ? artifactSigner(seed) : null;
  const artifacts = specs.map((s) => {
    const source = s.source ?? `kb:${kb}`;
    const version = s.version ?? "";
    const contentHash = artifactContentHash(
      s.files.map((f) => ({
        path: f.path,
        executable: f.executable ?? false,
        content: Buffer.isBuffer(f.content) ? f.content : Buffer.from(f.content, "utf8"),
      })),
    );
    const id = { source, kind: s.kind, name: s.name, version, contentHash };
    return {
      kind: s.kind,
      name: s.name,
      source,
      version,
      content_hash: contentHash,
      files: s.files.map(wireFile),
      signature: signer && source !== "bundle" ? signer.sign(id) : null,
    };
  });
  return {
    kb,
    revision: reviseOf(artifacts),
    signing_key: signer
      ? { algorithm: "ed25519", key_id: signer.keyId, public_key: signer.publicKey }
      : null,
    artifacts,
    skipped: [],
  };
}

/** The revision of wire artifacts (after a test edited them). */
export function reviseOf(artifacts: Record<string, unknown>[]): string {
  return manifestRevision(
    artifacts.map((a) => ({
      kind: String(a.kind),
      name: String(a.name),
      source: String(a.source),
      version: String(a.version),
      contentHash: String(a.content_hash),
      keyId: (a.signature as { key_id?: string } | null)?.key_id ?? "",
    })),
  );
}

export const skill = (name: string, extra: FileSpec[] = [], version = "1"): ArtifactSpec => ({
  kind: "skill",
  name,
  version,
  files: [
    { path: "SKILL.md", content: `---\nname: ${name}\nversion: ${version}\n---\nDo it.\n` },
    ...extra,
  ],
});

export const mcp = (name: string, descriptor: unknown): ArtifactSpec => ({
  kind: "mcp",
  name,
  files: [{ path: `${name}.json`, content: JSON.stringify(descriptor) }],
});

/** A session whose `artifact_manifest` answers come from `answer(args)`; records the calls. */
export function sessionOf(answer: (args: Record<string, unknown>) => string): McpSession & {
  calls: Record<string, unknown>[];
} {
  const calls: Record<string, unknown>[] = [];
  return {
    calls,
    listTools: async () => ["artifact_manifest"],
    callTool: async (name, args) => {
      if (name !== "artifact_manifest") throw new Error(`unexpected tool ${name}`);
      calls.push(args);
      return answer(args);
    },
    close: async () => {},
  };
}
