/**
 * The provisioning manifest (docs/provisioning.md): the KB's artifacts merged over the bundled
 * ones (a KB artifact with the same kind+name wins), MCP descriptors kept only when allow-listed,
 * KB artifacts signed when the KB has an `artifact_signing_seed`, filtered by the caller's
 * visibility. Every tool of the provisioning family reads through `effectiveArtifacts`.
 */
import { fileURLToPath } from "node:url";
import {
  type ArtifactSignature,
  artifactContentHash,
  artifactSigner,
  manifestRevision,
} from "../../common/provisioning/artifact-sign.js";
import { mcpAllowed, parseMcpDescriptor } from "../../common/provisioning/mcp-descriptor.js";
import type { KbSettings, Visibility } from "../../kb/core/types.js";
import { isVisible } from "../../kb/core/visibility.js";
import { artifactTreeStamp } from "../../kb/store/artifact-stamp.js";
import {
  type ArtifactKind,
  type ArtifactRecord,
  type SkippedArtifact,
  scanArtifacts,
} from "../../kb/store/artifacts.js";
import type { ToolContext } from "../spec.js";

/**
 * The package root, whose `skills/` folder holds the bundled skills. This module sits three
 * levels below it both as src/tools/support/*.ts and as dist/tools/support/*.js.
 */
export const PACKAGE_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

export interface EffectiveArtifact extends ArtifactRecord {
  source: string;
  contentHash: string;
  signature: ArtifactSignature | null;
}

export interface ManifestFile {
  path: string;
  executable: boolean;
  size: number;
  content?: string;
  content_base64?: string;
}

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** A file on the wire: `content` when valid UTF-8, else `content_base64` (hash is over bytes). */
export function wireFile(f: ArtifactRecord["files"][number]): ManifestFile {
  const base = { path: f.path, executable: f.executable, size: f.content.length };
  try {
    return { ...base, content: STRICT_UTF8.decode(f.content) };
  } catch {
    return { ...base, content_base64: Buffer.from(f.content).toString("base64") };
  }
}

/**
 * KB artifacts carry no map, journal or type: only a read rule over the whole KB sees them
 * (fail closed, as for assets, D118). Bundled artifacts are public to anyone who may read the KB.
 */
export function seesKbArtifacts(visibility: Visibility): boolean {
  return isVisible(visibility, { map: null, journal: null }, null);
}

function isJsonObject(bytes: Uint8Array | undefined): boolean {
  try {
    const v: unknown = JSON.parse(Buffer.from(bytes ?? []).toString("utf8"));
    return typeof v === "object" && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

/**
 * Drops MCP descriptors that are invalid or not allow-listed and hooks whose hook.json is not a
 * JSON object, recording why (a client would otherwise fail on them one provider at a time).
 */
function offerable(settings: KbSettings, records: ArtifactRecord[], skipped: SkippedArtifact[]) {
  return records.filter((a) => {
    if (a.kind === "hook" && !isJsonObject(a.files.find((f) => f.path === "hook.json")?.content)) {
      skipped.push({ kind: "hook", name: a.name, reason: "hook.json is not a JSON object" });
      return false;
    }
    if (a.kind !== "mcp") return true;
    const parsed = parseMcpDescriptor(Buffer.from(a.files[0]?.content ?? []).toString("utf8"));
    if ("error" in parsed) {
      skipped.push({ kind: "mcp", name: a.name, reason: `invalid descriptor: ${parsed.error}` });
      return false;
    }
    if (!mcpAllowed(settings.mcpAllowlist, a.name, parsed.descriptor)) {
      skipped.push({
        kind: "mcp",
        name: a.name,
        reason: "not in this KB's mcp_allowlist (name, transport and target must match)",
      });
      return false;
    }
    return true;
  });
}

export interface EffectiveSet {
  artifacts: EffectiveArtifact[];
  skipped: SkippedArtifact[];
  signingKey: { algorithm: "ed25519"; key_id: string; public_key: string } | null;
}

/** The artifacts the caller may see, sorted by kind then name, each once. */
export async function effectiveArtifacts(ctx: ToolContext): Promise<EffectiveSet> {
  return (await cachedEntry(ctx)).set;
}

/** What one KB's manifest costs to build, kept while the artifact tree's stamp holds. */
interface CacheEntry {
  key: string;
  set: EffectiveSet;
  manifest?: Manifest;
}

/** store → (sees KB artifacts?) → entry. A KB closed and dropped frees its entries. */
const cache = new WeakMap<object, Map<boolean, CacheEntry>>();

/** Above this many file bytes a KB's set is rebuilt on every call rather than kept in memory. */
const CACHE_MAX_BYTES = 32 * 1024 * 1024;

/**
 * The caller's effective set, from the cache when the stamps of the KB's artifact tree and of
 * the bundled skills (artifact-stamp.ts: every edit, however made, changes them) and the
 * settings that shape the set are those it was built under; else built and cached.
 */
async function cachedEntry(ctx: ToolContext): Promise<CacheEntry> {
  const store = ctx.runtime.store;
  const settings = ctx.runtime.settings;
  const kbVisible = seesKbArtifacts(ctx.visibility);
  const kbStamp = kbVisible ? store.provisioningStamp() : "";
  const bundledStamp = artifactTreeStamp(PACKAGE_ROOT, { legacy: false, instructions: false });
  const key =
    kbStamp === null || bundledStamp === null
      ? null
      : JSON.stringify([
          kbStamp,
          bundledStamp,
          settings.name,
          settings.artifactSigningSeed ?? "",
          settings.mcpAllowlist ?? null,
        ]);
  let perStore = cache.get(store);
  const hit = perStore?.get(kbVisible);
  if (key !== null && hit?.key === key) return hit;
  const entry: CacheEntry = { key: key ?? "", set: await buildEffectiveSet(ctx, kbVisible) };
  const bytes = entry.set.artifacts.reduce(
    (n, a) => n + a.files.reduce((m, f) => m + f.content.length, 0),
    0,
  );
  if (key !== null && bytes <= CACHE_MAX_BYTES) {
    if (!perStore) {
      perStore = new Map();
      cache.set(store, perStore);
    }
    perStore.set(kbVisible, entry);
  } else {
    perStore?.delete(kbVisible);
  }
  return entry;
}

async function buildEffectiveSet(ctx: ToolContext, kbVisible: boolean): Promise<EffectiveSet> {
  const settings = ctx.runtime.settings;
  const bundled = await scanArtifacts(PACKAGE_ROOT, { instructionsName: null, legacy: false });
  const byKey = new Map<string, EffectiveArtifact>();
  const withHash = (a: ArtifactRecord, source: string): EffectiveArtifact => ({
    ...a,
    source,
    contentHash: artifactContentHash(a.files),
    signature: null,
  });
  // Only skills ship with the package; the package root has no other artifact folder to trust.
  for (const a of bundled.artifacts.filter((b) => b.kind === "skill")) {
    byKey.set(`${a.kind}\0${a.name}`, withHash(a, "bundle"));
  }
  const skipped: SkippedArtifact[] = [];
  const signer = settings.artifactSigningSeed ? artifactSigner(settings.artifactSigningSeed) : null;
  if (kbVisible) {
    const scan = await ctx.runtime.store.provisioningArtifacts();
    skipped.push(...scan.skipped);
    const source = `kb:${settings.name}`;
    for (const a of offerable(settings, scan.artifacts, skipped)) {
      const e = withHash(a, source);
      if (signer) {
        e.signature = signer.sign({
          source,
          kind: e.kind,
          name: e.name,
          version: e.version,
          contentHash: e.contentHash,
        });
      }
      byKey.set(`${a.kind}\0${a.name}`, e); // the KB's copy wins over the bundled one
    }
  }
  const artifacts = [...byKey.values()].sort((a, b) =>
    a.kind === b.kind
      ? Buffer.compare(Buffer.from(a.name), Buffer.from(b.name))
      : a.kind < b.kind
        ? -1
        : 1,
  );
  return {
    artifacts,
    skipped,
    signingKey:
      signer && kbVisible
        ? { algorithm: "ed25519", key_id: signer.keyId, public_key: signer.publicKey }
        : null,
  };
}

type Manifest = ReturnType<typeof manifestOf>;

/**
 * The manifest result of docs/provisioning.md. With `knownRevision` equal to the current
 * revision the answer is `{kb, revision, unchanged: true}` without the artifacts (the client
 * already holds them; docs/provisioning.md "known_revision").
 */
export async function buildManifest(ctx: ToolContext, knownRevision?: string) {
  const entry = await cachedEntry(ctx);
  entry.manifest ??= manifestOf(ctx, entry.set);
  const m = entry.manifest;
  if (knownRevision !== undefined && knownRevision === m.revision) {
    return { kb: m.kb, revision: m.revision, unchanged: true };
  }
  return { ...m };
}

function manifestOf(ctx: ToolContext, set: EffectiveSet) {
  return {
    kb: ctx.runtime.settings.name,
    revision: manifestRevision(
      set.artifacts.map((a) => ({ ...a, keyId: a.signature?.key_id ?? "" })),
    ),
    signing_key: set.signingKey,
    artifacts: set.artifacts.map((a) => ({
      kind: a.kind,
      name: a.name,
      source: a.source,
      version: a.version,
      content_hash: a.contentHash,
      files: a.files.map(wireFile),
      signature: a.signature,
    })),
    skipped: set.skipped.map((s) => ({ kind: s.kind, name: s.name, reason: s.reason })),
  };
}

/** One artifact's summary for the list tools (no content). */
export function summary(a: EffectiveArtifact) {
  return {
    name: a.name,
    source: a.source,
    version: a.version,
    description: a.description,
    content_hash: a.contentHash,
    files: a.files.map((f) => f.path),
  };
}

export type { ArtifactKind };
