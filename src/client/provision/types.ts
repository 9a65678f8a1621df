/**
 * The shared vocabulary of provisioning (client side): what the server's
 * `artifact_manifest` gives us (docs/provisioning.md), what the trust gate lets through, what a
 * provider target renders, and what the engine writes, records in the lockfile and prunes.
 *
 * Three parts meet here and nowhere else:
 * - `manifest.ts` + `trust.ts` turn the server's answers into accepted artifacts (or fail whole);
 * - `targets/<provider>.ts` render accepted artifacts into files and managed sections (pure);
 * - the engine (`lockfile.ts`, `plan.ts`, `apply.ts`, `provision.ts`) compares that with the
 *   lockfile and the disk, writes, reports drift and prunes only what it wrote.
 */
import type { ArtifactSignature } from "../../common/provisioning/artifact-sign.js";
import type { ProviderId, Scope } from "../config.js";

export type ArtifactKind = "skill" | "agent" | "hook" | "mcp" | "instructions";

export const ARTIFACT_KINDS: readonly ArtifactKind[] = [
  "skill",
  "agent",
  "hook",
  "mcp",
  "instructions",
];

/** One file of an artifact, decoded from the manifest (`content` or `content_base64`). */
export interface ArtifactFile {
  /** POSIX path relative to the artifact, re-checked by the client (no `..`, absolute, hidden). */
  path: string;
  executable: boolean;
  bytes: Buffer;
}

/** One artifact as the client holds it once its content hash has been recomputed and matched. */
export interface Artifact {
  /** The bound KB whose manifest listed it. */
  kb: string;
  kind: ArtifactKind;
  name: string;
  /** `"bundle"` or `"kb:<kb name>"`. */
  source: string;
  version: string;
  /** Recomputed by the client from `files`; equal to the server's or the artifact is refused. */
  contentHash: string;
  files: ArtifactFile[];
  signature: ArtifactSignature | null;
}

export interface ManifestSigningKey {
  algorithm: "ed25519";
  key_id: string;
  public_key: string;
}

/** One KB's `artifact_manifest` answer, validated. */
export interface KbManifest {
  kb: string;
  revision: string;
  signingKey: ManifestSigningKey | null;
  artifacts: Artifact[];
  /** What the server left out, and why (never content). */
  skipped: { kind: string; name: string; reason: string }[];
}

/**
 * Why an artifact is held. `unapproved` (no approval at all) is the one cause whose installed
 * copy is removed — its approval was revoked; an `unsigned` one is removed too when the KB's
 * recorded `trust` was withdrawn since (provision.ts). Every other hold leaves the installed copy.
 */
export type HoldCause =
  | "unsigned"
  | "unapproved"
  | "approval-changed"
  | "command"
  | "descriptor"
  | "bundle"
  | "collision";

/** An artifact the client will not materialize this time, and the one-line reason (with the fix). */
export interface HeldArtifact {
  kb: string;
  kind: ArtifactKind | string;
  name: string;
  reason: string;
  cause?: HoldCause;
  /** Set by the engine: a copy written earlier stays on disk, as it is (neither updated nor pruned). */
  kept?: boolean;
}

/** The trust gate's answer for the bound KBs (a bad or unknown signature throws instead). */
export interface TrustDecision {
  accepted: Artifact[];
  held: HeldArtifact[];
}

/** What a target needs to place files: the provider's scope and the process facts. */
export interface RenderContext {
  scope: Scope;
  home: string;
  /** The project directory for scope `project` (the binding's `project_dir`, else cwd). */
  projectDir: string;
  env: Record<string, string | undefined>;
  /** `server_name` from the yaml, used to name managed blocks and entries. */
  serverName: string;
  /** Add the SessionStart hook that runs `cartographer sync` quietly (`--bootstrap-hook`). */
  bootstrapHook: boolean;
  /**
   * Sections the lockfile says this provider owned after the last sync (`file` + `id`). A
   * section named after an artifact (`mcp:<entry>`) cannot be rebuilt once the artifact is gone,
   * so the target returns each of these again — with `desired: null` when nothing renders it
   * now — and the prune can remove it. Absent = none known.
   */
  ownedSections?: readonly { file: string; id: string }[];
}

/** A whole file the client owns. The engine writes it only inside one of `RenderResult.roots`. */
export interface DesiredFile {
  /** Absolute path. */
  path: string;
  bytes: Buffer;
  executable: boolean;
  /** `"<kb>/<kind>/<name>"` of the artifact it came from, for reports and the lockfile. */
  origin: string;
}

/**
 * Our part of a file shared with the user (Claude `settings.json` hooks, a Codex `config.toml`
 * managed block, an MCP server entry). The engine hashes `desired` and `read(text)` to detect
 * drift, and calls `write` to set or remove our part while keeping everything else.
 */
export interface ManagedSection {
  /** Absolute path of the shared file. */
  file: string;
  /** Stable id of our part, unique within `file` (e.g. `hooks`, `mcp:grafana`). */
  id: string;
  /** Canonical text of our part; null = we own nothing there now (prune it). */
  desired: string | null;
  /** Our part as `text` holds it, in the same canonical form; null when absent. Throws a ConfigError on an unparsable file. */
  read(text: string | null): string | null;
  /** `text` with our part set to `section` (null removes it); every other byte kept where possible. */
  write(text: string | null, section: string | null): string;
  origins: string[];
  /**
   * Connect's own part (the cartographer entry, the instructions block): written whenever it
   * differs and removed whenever `desired` is null, lock record or not — never kept as the
   * user's (targets/connection-sections.ts).
   */
  converge?: boolean;
  /** True when a file our removal left holds nothing of anyone's: the file is removed then. */
  bare?(text: string): boolean;
  /** The mode every write of the file sets (0600 when a literal token is written). */
  mode?: number;
}

export interface RenderResult {
  /**
   * The directories this target may write under (e.g. `<project>/.claude`). The engine refuses
   * any file or section outside them and never creates, follows or removes anything above them.
   */
  roots: string[];
  files: DesiredFile[];
  /**
   * Every section the target may own, also when `desired` is null, so that rendering an empty
   * artifact list yields what a prune must remove.
   */
  sections: ManagedSection[];
  /** One line each: an artifact kind this provider cannot take, and why (said once per sync). */
  notes: string[];
}

/** One agent tool's provisioning layout. Pure: no I/O, no clock, no environment reads. */
export interface ProvisionTarget {
  id: ProviderId;
  render(artifacts: readonly Artifact[], ctx: RenderContext): RenderResult;
}
