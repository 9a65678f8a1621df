/**
 * The client's reading of one `artifact_manifest` answer (docs/provisioning.md "the result
 * shape"). Pure: no I/O. Nothing the server sent is believed until checked here:
 *
 * 1. the shape (types, hex lengths, kinds, exactly one of `content`/`content_base64`, sizes,
 *    counts, order) — a bad field is a `protocol` ClientError naming the KB and the field;
 * 2. every file path and artifact name, by the client's own rule (`artifactPathProblem`), since
 *    these become file names under the agent tools' folders;
 * 3. the content hash, recomputed from the decoded bytes (`artifactContentHash`), and the
 *    revision (`manifestRevision`) — a mismatch is an `integrity` ClientError: the answer was
 *    altered in transit or by the server, and the whole sync must fail.
 *
 * Signatures are only shape-checked here; trust.ts verifies them against pinned keys.
 */
import {
  type ArtifactSignature,
  artifactContentHash,
  artifactKeyId,
  manifestRevision,
} from "../../common/provisioning/artifact-sign.js";
import { BadManifestError, ClientError } from "../errors.js";
import {
  ARTIFACT_KINDS,
  type Artifact,
  type ArtifactFile,
  type ArtifactKind,
  type KbManifest,
  type ManifestSigningKey,
} from "./types.js";

/** Bounds on what one client run accepts (the server's own limits, docs/provisioning.md). */
export const MANIFEST_LIMITS = {
  /** Artifacts over all fetched KBs. */
  maxArtifacts: 5_000,
  /** Decoded file bytes over all fetched KBs. */
  maxTotalBytes: 64 * 1024 * 1024,
  /** The server skips bigger artifacts; a manifest carrying one is not the server's. */
  maxFilesPerArtifact: 200,
  maxFileBytes: 256 * 1024,
  maxArtifactBytes: 4 * 1024 * 1024,
  maxSkipped: 10_000,
  /** Longest path and path segment in UTF-8 bytes (the KB's own path rule). */
  maxPathBytes: 512,
  maxSegmentBytes: 128,
  maxVersionChars: 256,
} as const;

/** What one client run has accepted so far, shared by the manifests of every bound KB. */
export interface ManifestBudget {
  artifacts: number;
  bytes: number;
}

const HEX64 = /^[0-9a-f]{64}$/;
const NAME = /^[a-z0-9][a-z0-9._-]*$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** C0/C1 controls and bidi marks (they make a name display as another). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE_CHAR = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
/** Kinds whose files may keep an executable bit (scripts of skills and hooks). */
const EXEC_KINDS = new Set<ArtifactKind>(["skill", "hook"]);
const MAIN_FILE: Partial<Record<ArtifactKind, string>> = { skill: "SKILL.md", hook: "hook.json" };

/** `text` with control and bidi characters written as `\uXXXX` (safe to print on a terminal). */
export function printable(text: string): string {
  return text.replace(new RegExp(UNSAFE_CHAR.source, "gu"), (c) => {
    return `\\u${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
  });
}

/**
 * Why `path` may not name a file of an artifact, or null when it may: a relative POSIX path in
 * normal form (no empty, `.` or `..` segment, no leading `/`), no hidden segment, no backslash,
 * no control or bidi character, within the KB's length limits.
 */
export function artifactPathProblem(path: string): string | null {
  if (path === "") return "is empty";
  if (path.includes("\\")) return "contains a backslash";
  if (UNSAFE_CHAR.test(path)) return "contains a control or bidi character";
  if (Buffer.byteLength(path) > MANIFEST_LIMITS.maxPathBytes) {
    return `is longer than ${MANIFEST_LIMITS.maxPathBytes} bytes`;
  }
  if (path.startsWith("/")) return "is absolute";
  for (const segment of path.split("/")) {
    if (segment === "") return "has an empty segment";
    if (segment === "." || segment === "..") return `has a "${segment}" segment`;
    if (segment.startsWith(".")) return `has a hidden segment "${segment}"`;
    if (Buffer.byteLength(segment) > MANIFEST_LIMITS.maxSegmentBytes) {
      return `has a segment longer than ${MANIFEST_LIMITS.maxSegmentBytes} bytes`;
    }
  }
  return null;
}

/** Why `name` may not name an artifact of `kind` from KB `kb`, or null when it may. */
export function artifactNameProblem(kind: ArtifactKind, name: string, kb: string): string | null {
  // The instructions artifact is named after its KB, whose name follows the server's rules.
  if (kind === "instructions") return name === kb ? null : `must be the KB name "${kb}"`;
  if (Buffer.byteLength(name) > 64) return "is longer than 64 bytes";
  return NAME.test(name) ? null : "must match [a-z0-9][a-z0-9._-]*";
}

type Json = Record<string, unknown>;

class Reader {
  constructor(readonly kb: string) {}

  fail(field: string, what: string): never {
    throw new BadManifestError(
      `KB ${this.kb}: the artifact_manifest answer is malformed: ${printable(field)} ${printable(what)}; the sync writes nothing (is the server a Cartographer server of this version?)`,
    );
  }

  object(value: unknown, field: string): Json {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      this.fail(field, "must be an object");
    }
    return value as Json;
  }

  array(value: unknown, field: string): unknown[] {
    if (!Array.isArray(value)) this.fail(field, "must be an array");
    return value;
  }

  string(value: unknown, field: string): string {
    if (typeof value !== "string") this.fail(field, "must be a string");
    return value;
  }

  hex64(value: unknown, field: string): string {
    if (typeof value !== "string" || !HEX64.test(value)) {
      this.fail(field, "must be 64 lowercase hexadecimal characters");
    }
    return value;
  }
}

function signingKeyOf(r: Reader, value: unknown): ManifestSigningKey | null {
  if (value === null || value === undefined) return null;
  const o = r.object(value, "signing_key");
  if (o.algorithm !== "ed25519") r.fail("signing_key.algorithm", 'must be "ed25519"');
  const key = r.hex64(o.public_key, "signing_key.public_key");
  const keyId = r.hex64(o.key_id, "signing_key.key_id");
  if (artifactKeyId(key) !== keyId) {
    r.fail("signing_key.key_id", "is not the sha256 of signing_key.public_key");
  }
  return { algorithm: "ed25519", key_id: keyId, public_key: key };
}

function signatureOf(r: Reader, value: unknown, field: string): ArtifactSignature | null {
  if (value === null) return null;
  const o = r.object(value, field);
  if (o.algorithm !== "ed25519") r.fail(`${field}.algorithm`, 'must be "ed25519"');
  if (typeof o.envelope_version !== "number" || !Number.isInteger(o.envelope_version)) {
    r.fail(`${field}.envelope_version`, "must be an integer");
  }
  return {
    algorithm: "ed25519",
    key_id: r.hex64(o.key_id, `${field}.key_id`),
    envelope_version: o.envelope_version,
    value: r.string(o.value, `${field}.value`),
  };
}

function fileOf(r: Reader, value: unknown, field: string, kind: ArtifactKind): ArtifactFile {
  const o = r.object(value, field);
  const path = r.string(o.path, `${field}.path`);
  const problem = artifactPathProblem(path);
  if (problem) r.fail(`${field}.path "${path}"`, problem);
  if (typeof o.executable !== "boolean") r.fail(`${field}.executable`, "must be a boolean");
  if (o.executable && !EXEC_KINDS.has(kind)) {
    r.fail(`${field}.executable`, `must be false for a ${kind} (only skill and hook scripts run)`);
  }
  const size = o.size;
  if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0) {
    r.fail(`${field}.size`, "must be a non-negative integer");
  }
  if (size > MANIFEST_LIMITS.maxFileBytes) {
    r.fail(`${field}.size`, `is over the ${MANIFEST_LIMITS.maxFileBytes}-byte file limit`);
  }
  const hasText = "content" in o;
  const hasBase64 = "content_base64" in o;
  if (hasText === hasBase64) r.fail(field, "must carry exactly one of content and content_base64");
  let bytes: Buffer;
  if (hasText) {
    bytes = Buffer.from(r.string(o.content, `${field}.content`), "utf8");
  } else {
    const b64 = r.string(o.content_base64, `${field}.content_base64`);
    if (!BASE64.test(b64)) r.fail(`${field}.content_base64`, "is not standard padded base64");
    bytes = Buffer.from(b64, "base64");
  }
  if (bytes.length !== size) {
    r.fail(`${field}.size`, `is ${size} but the content decodes to ${bytes.length} bytes`);
  }
  return { path, executable: o.executable, bytes };
}

/** The files of one artifact must form a tree the client can write: no duplicate, no file-as-folder. */
function checkFileSet(r: Reader, files: ArtifactFile[], field: string): void {
  const folded = new Set<string>();
  for (const f of files) {
    // Case-folded: on macOS and Windows `SKILL.md` and `skill.md` are the same file.
    const key = f.path.toLowerCase();
    if (folded.has(key))
      r.fail(`${field} "${f.path}"`, "appears twice (paths compared ignoring case)");
    folded.add(key);
  }
  for (const key of folded) {
    const parts = key.split("/");
    for (let i = 1; i < parts.length; i++) {
      if (folded.has(parts.slice(0, i).join("/"))) {
        r.fail(`${field} "${key}"`, "lies under another file of the artifact");
      }
    }
  }
}

function checkLayout(
  r: Reader,
  a: { kind: ArtifactKind; name: string },
  files: ArtifactFile[],
  field: string,
): void {
  const main = MAIN_FILE[a.kind];
  if (main !== undefined) {
    if (!files.some((f) => f.path === main)) r.fail(field, `has no ${main}`);
    return;
  }
  const only =
    a.kind === "instructions"
      ? "instructions.md"
      : `${a.name}${a.kind === "mcp" ? ".json" : ".md"}`;
  if (files.length !== 1 || files[0]?.path !== only) {
    r.fail(field, `must be exactly one file named ${only}`);
  }
}

function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

function artifactOf(r: Reader, value: unknown, index: number, budget: ManifestBudget): Artifact {
  const at = `artifacts[${index}]`;
  const o = r.object(value, at);
  const kind = r.string(o.kind, `${at}.kind`) as ArtifactKind;
  if (!ARTIFACT_KINDS.includes(kind)) {
    r.fail(`${at}.kind`, `"${kind}" is not one of ${ARTIFACT_KINDS.join(", ")}`);
  }
  const name = r.string(o.name, `${at}.name`);
  const nameProblem = artifactNameProblem(kind, name, r.kb);
  if (nameProblem) r.fail(`${at}.name "${name}"`, nameProblem);
  const field = `${at} (${kind} ${name})`;
  const source = r.string(o.source, `${field}.source`);
  if (source !== "bundle" && source !== `kb:${r.kb}`) {
    r.fail(`${field}.source "${source}"`, `must be "bundle" or "kb:${r.kb}"`);
  }
  // The package ships skills only (docs/provisioning.md): anything else "bundled" is not ours.
  if (source === "bundle" && kind !== "skill")
    r.fail(`${field}.source`, "bundle is for skills only");
  const version = r.string(o.version, `${field}.version`);
  if (version.length > MANIFEST_LIMITS.maxVersionChars || UNSAFE_CHAR.test(version)) {
    r.fail(`${field}.version`, "is too long or holds a control character");
  }
  const claimed = r.hex64(o.content_hash, `${field}.content_hash`);
  const rawFiles = r.array(o.files, `${field}.files`);
  if (rawFiles.length === 0) r.fail(`${field}.files`, "is empty");
  if (rawFiles.length > MANIFEST_LIMITS.maxFilesPerArtifact) {
    r.fail(`${field}.files`, `has more than ${MANIFEST_LIMITS.maxFilesPerArtifact} files`);
  }
  const files = rawFiles.map((f, i) => fileOf(r, f, `${field}.files[${i}]`, kind));
  checkFileSet(r, files, `${field}.files`);
  checkLayout(r, { kind, name }, files, `${field}.files`);
  const bytes = files.reduce((n, f) => n + f.bytes.length, 0);
  if (bytes > MANIFEST_LIMITS.maxArtifactBytes) {
    r.fail(`${field}.files`, `total over ${MANIFEST_LIMITS.maxArtifactBytes} bytes`);
  }
  budget.bytes += bytes;
  if (budget.bytes > MANIFEST_LIMITS.maxTotalBytes) {
    throw new BadManifestError(
      `KB ${r.kb}: the manifests hold more than ${MANIFEST_LIMITS.maxTotalBytes / 1024 / 1024} MiB of artifact files (the client's limit); bind fewer KBs to this client or slim the KB's artifacts`,
    );
  }
  if (!("signature" in o)) r.fail(`${field}.signature`, "is missing (null when unsigned)");
  const signature = signatureOf(r, o.signature, `${field}.signature`);
  if (signature && source === "bundle")
    r.fail(`${field}.signature`, "must be null for a bundled artifact");
  const contentHash = artifactContentHash(
    files.map((f) => ({ path: f.path, executable: f.executable, content: f.bytes })),
  );
  if (contentHash !== claimed) {
    throw new ClientError(
      "integrity",
      `KB ${r.kb}: ${kind} ${name}: its files do not match its content_hash (server said ${claimed.slice(0, 12)}…, the bytes received hash to ${contentHash.slice(0, 12)}…); the answer was altered in transit or by the server: nothing was written — investigate before syncing again`,
    );
  }
  return { kb: r.kb, kind, name, source, version, contentHash, files, signature };
}

function skippedOf(r: Reader, value: unknown): KbManifest["skipped"] {
  const list = r.array(value, "skipped");
  if (list.length > MANIFEST_LIMITS.maxSkipped) {
    r.fail("skipped", `has more than ${MANIFEST_LIMITS.maxSkipped} entries`);
  }
  return list.map((item, i) => {
    const o = r.object(item, `skipped[${i}]`);
    // Shown to the user: kept printable and short.
    const text = (v: unknown, f: string, max: number) => {
      const s = printable(r.string(v, `skipped[${i}].${f}`));
      return s.length > max ? `${s.slice(0, max)}…` : s;
    };
    return {
      kind: text(o.kind, "kind", 32),
      name: text(o.name, "name", 128),
      reason: text(o.reason, "reason", 300),
    };
  });
}

/**
 * Validates one manifest answer (already JSON-parsed) for KB `kb` and decodes its files.
 * `budget` is shared by every KB of one run (bounds on count and bytes). Throws a `protocol`
 * ClientError for a malformed field, an `integrity` one for a hash or revision mismatch.
 */
export function readManifest(kb: string, value: unknown, budget: ManifestBudget): KbManifest {
  const r = new Reader(kb);
  const o = r.object(value, "the answer");
  if (o.kb !== kb) r.fail("kb", `is ${JSON.stringify(o.kb)}, the manifest of another KB`);
  const revision = r.hex64(o.revision, "revision");
  const signingKey = signingKeyOf(r, o.signing_key);
  const list = r.array(o.artifacts, "artifacts");
  budget.artifacts += list.length;
  if (budget.artifacts > MANIFEST_LIMITS.maxArtifacts) {
    throw new BadManifestError(
      `KB ${kb}: the manifests list more than ${MANIFEST_LIMITS.maxArtifacts} artifacts (the client's limit); bind fewer KBs to this client`,
    );
  }
  const artifacts = list.map((a, i) => artifactOf(r, a, i, budget));
  for (let i = 1; i < artifacts.length; i++) {
    const prev = artifacts[i - 1] as Artifact;
    const cur = artifacts[i] as Artifact;
    const order =
      prev.kind === cur.kind ? byteCompare(prev.name, cur.name) : byteCompare(prev.kind, cur.kind);
    if (order >= 0) {
      r.fail(
        `artifacts[${i}] (${cur.kind} ${cur.name})`,
        order === 0 ? "is listed twice" : "is out of order (kind, then name)",
      );
    }
  }
  const skipped = skippedOf(r, o.skipped);
  const recomputed = manifestRevision(
    artifacts.map((a) => ({ ...a, keyId: a.signature?.key_id ?? "" })),
  );
  if (recomputed !== revision) {
    throw new ClientError(
      "integrity",
      `KB ${kb}: the manifest's revision does not match its artifacts (server said ${revision.slice(0, 12)}…, recomputed ${recomputed.slice(0, 12)}…); the answer was altered in transit or by the server: nothing was written`,
    );
  }
  return { kb, revision, signingKey, artifacts, skipped };
}
