/**
 * The trust gate (docs/decisions.md "Provisioning trust"): which validated artifacts the client may
 * materialize. Rules, in the order they apply to each artifact:
 *
 * | artifact                                   | outcome                                        |
 * |--------------------------------------------|------------------------------------------------|
 * | `source: bundle`, a skill byte for byte    | accepted: it is what the installed package      |
 * |   this client package's own bundled copy   |   ships (the label alone proves nothing)       |
 * | `source: bundle`, anything else            | held (`bundle`): the label is the server's word |
 * | signed, key id not pinned for its KB       | THROW `untrusted` (the sync writes nothing)    |
 * | signed, pinned key, signature bad          | THROW `untrusted` (tampering)                  |
 * | signed, pinned key, signature good         | accepted (pinning the key is the consent)      |
 * | unsigned, its KB has pinned keys           | THROW `untrusted` (downgrade)                  |
 * | unsigned, KB in `trust` or `--auto-trust`  | accepted                                       |
 * | unsigned otherwise                         | held: run `cartographer trust <kb>`            |
 * | `mcp`, accepted above, no approval         | held: run `cartographer approve <kb> <name>`   |
 * | `mcp`, approval of another content hash    | held: changed since approval                   |
 * | `mcp` stdio, command not found             | held: install it (never run)                   |
 *
 * Keys come only from the user (`signing_keys` in `.cartographer.yaml`, `--pin-key`); the
 * manifest's `signing_key` is never trusted by itself, only quoted in the fix.
 */
import { artifactKeyId, verifyArtifactSignature } from "../../common/provisioning/artifact-sign.js";
import type { ClientConfig } from "../config.js";
import { ClientError, ConfigError } from "../errors.js";
import { approvalState, commandProblem, readDescriptor } from "./approvals.js";
import { ownBundledSkills } from "./bundled.js";
import type { Artifact, HeldArtifact, HoldCause, KbManifest, TrustDecision } from "./types.js";

export interface TrustOptions {
  /** `--auto-trust`: unsigned KB artifacts accepted for this run only (not saved). */
  autoTrust: boolean;
  /** `--pin-key <kb>=<hex>` of this run (the command also saves them into `signing_keys`). */
  pinKeys?: Record<string, string[]>;
  /**
   * The environment whose PATH resolves stdio MCP commands (the command's `io.env`). Without it
   * a bare command name cannot be looked up and its descriptor is held.
   */
  env?: Record<string, string | undefined>;
  /**
   * name → content hash of the skills this client's package ships (default: read from the
   * package, bundled.ts). Every `source: "bundle"` artifact is checked against it.
   */
  bundledSkills?: ReadonlyMap<string, string>;
}

const HEX64 = /^[0-9a-f]{64}$/;

/** The public keys pinned for `kb`: the yaml's `signing_keys` and this run's `--pin-key`. */
export function pinnedKeys(
  config: ClientConfig,
  kb: string,
  pinKeys?: Record<string, string[]>,
): string[] {
  const keys = [...(config.signing_keys?.[kb] ?? []), ...(pinKeys?.[kb] ?? [])];
  return [...new Set(keys.map((k) => k.toLowerCase()))];
}

/**
 * Parses `--pin-key <kb>=<hex>` values (repeatable) into `{kb: [keys]}`. Throws ConfigError
 * naming the bad value's form (a public key is not a secret, but a pasted seed would be: the
 * message never repeats the value).
 */
export function parsePinKeys(specs: readonly string[] | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const spec of specs ?? []) {
    const at = spec.lastIndexOf("=");
    const kb = at > 0 ? spec.slice(0, at).trim() : "";
    const key =
      at > 0
        ? spec
            .slice(at + 1)
            .trim()
            .toLowerCase()
        : "";
    if (kb === "" || !HEX64.test(key)) {
      throw new ConfigError(
        "--pin-key takes <kb>=<public key>, the key as 64 hexadecimal characters (the KB's Ed25519 public key, from the KB's owner; never the signing seed)",
      );
    }
    out[kb] = [...new Set([...(out[kb] ?? []), key])];
  }
  return out;
}

/** `config` with `pinKeys` added to `signing_keys` (what `--pin-key` saves). */
export function withPinnedKeys(
  config: ClientConfig,
  pinKeys: Record<string, string[]> | undefined,
): ClientConfig {
  if (!pinKeys || Object.keys(pinKeys).length === 0) return config;
  const signing = { ...(config.signing_keys ?? {}) };
  for (const kb of Object.keys(pinKeys)) signing[kb] = pinnedKeys(config, kb, pinKeys);
  return { ...config, signing_keys: signing };
}

function untrusted(a: Artifact, what: string): ClientError {
  return new ClientError(
    "untrusted",
    `KB ${a.kb}: ${a.kind} ${a.name}: ${what}; the sync was stopped and nothing was written`,
  );
}

/** Throws unless `a`'s signature verifies against a key pinned for its KB. */
function checkSignature(a: Artifact, manifest: KbManifest, keys: string[]): void {
  const sig = a.signature;
  if (sig === null) {
    throw untrusted(
      a,
      `unsigned, but signing keys are pinned for KB ${a.kb}: a KB that signs never serves an unsigned artifact (the server lost its artifact_signing_seed, or the answer was altered). If the KB stopped signing on purpose, remove signing_keys.${a.kb} from .cartographer.yaml`,
    );
  }
  const key = keys.find((k) => artifactKeyId(k) === sig.key_id);
  if (key === undefined) {
    const offered = manifest.signingKey?.key_id === sig.key_id ? manifest.signingKey : null;
    const fix = offered
      ? `the server names public key ${offered.public_key} for it: check its key id with the KB's owner, then pin it with --pin-key ${a.kb}=${offered.public_key} (or cartographer trust ${a.kb} --pin-key-from-server)`
      : `pin the KB's public key from its owner with --pin-key ${a.kb}=<64 hex>`;
    const pinned =
      keys.length === 0 ? "none" : keys.map((k) => artifactKeyId(k).slice(0, 12)).join(", ");
    throw untrusted(
      a,
      `unknown signing key: signed with key id ${sig.key_id}, which is not pinned for KB ${a.kb} (pinned: ${pinned}). If you expect this key (first use, or a rotation by the KB's owner), ${fix}; otherwise investigate: the answer may be forged`,
    );
  }
  const id = {
    source: a.source,
    kind: a.kind,
    name: a.name,
    version: a.version,
    contentHash: a.contentHash,
  };
  if (!verifyArtifactSignature(key, id, sig)) {
    throw untrusted(
      a,
      `its signature does not verify with the pinned key ${sig.key_id.slice(0, 12)}…: the artifact was altered after signing (tampering) — investigate before syncing again`,
    );
  }
}

/** Why an accepted-so-far MCP descriptor is held, or null when it may be written. */
function mcpHold(
  a: Artifact,
  config: ClientConfig,
  opts: TrustOptions,
): { reason: string; cause: HoldCause } | null {
  const state = approvalState(config.approvals, a);
  if (state === "missing") {
    return {
      reason: `not approved; review it and run cartographer approve ${a.kb} ${a.name}`,
      cause: "unapproved",
    };
  }
  if (state === "changed") {
    return {
      reason: `changed since approval, its entry is removed until approved again; review and approve: cartographer approve ${a.kb} ${a.name}`,
      cause: "approval-changed",
    };
  }
  const read = readDescriptor(a);
  if ("error" in read) return { reason: `not placed: ${read.error}`, cause: "descriptor" };
  const command = read.view.command;
  if (read.view.type === "stdio" && command !== undefined) {
    if (!opts.env && !command.startsWith("/"))
      return { reason: `command ${command} not checked (no PATH)`, cause: "command" };
    const problem = commandProblem(command, opts.env ?? {});
    if (problem) return { reason: problem, cause: "command" };
  }
  return null;
}

/** Why a `bundle`-labelled artifact is not this package's own skill, or null when it is. */
function bundleMismatch(a: Artifact, opts: TrustOptions): string | null {
  if (a.kind !== "skill")
    return `labelled bundled, but this client's package bundles skills only, not a ${a.kind}`;
  const own = (opts.bundledSkills ?? ownBundledSkills()).get(a.name);
  if (own === undefined) return "labelled bundled, but this client's package has no such skill";
  if (own !== a.contentHash)
    return "labelled bundled, but it differs from this client's package copy";
  return null;
}

/**
 * Splits the validated manifests (fetchManifests) into accepted and held artifacts. Throws an
 * `untrusted` ClientError — and the caller must then write nothing — for a signature by a key
 * not pinned for its KB, a signature that does not verify, or an unsigned artifact from a KB
 * with pinned keys. Never runs a command; `${VAR}` references stay text.
 */
export function evaluateTrust(
  manifests: readonly KbManifest[],
  config: ClientConfig,
  opts: TrustOptions,
): TrustDecision {
  const accepted: Artifact[] = [];
  const held: HeldArtifact[] = [];
  const hold = (a: Artifact, reason: string, cause: HoldCause) =>
    held.push({ kb: a.kb, kind: a.kind, name: a.name, reason, cause });
  const trusted = new Set(config.trust ?? []);
  for (const manifest of manifests) {
    const keys = pinnedKeys(config, manifest.kb, opts.pinKeys);
    // Every signature is checked before anything is accepted: one bad artifact fails them all.
    for (const a of manifest.artifacts) {
      if (a.source !== "bundle" && (a.signature !== null || keys.length > 0)) {
        checkSignature(a, manifest, keys);
      }
    }
    for (const a of manifest.artifacts) {
      if (a.source === "bundle") {
        // `bundle` is a label the server (or anyone between) chose, signed by nobody: only
        // this package's own copy is taken on it (docs/decisions.md, Client).
        const why = bundleMismatch(a, opts);
        if (why !== null) {
          hold(
            a,
            `${why}; the bundle label is signed by no one, so only this client's own copy is taken on it — run the same cartographer version on both sides`,
            "bundle",
          );
          continue;
        }
      }
      if (a.source !== "bundle" && a.signature === null) {
        if (!trusted.has(a.kb) && !opts.autoTrust) {
          hold(a, `unsigned; run cartographer trust ${a.kb} (or --auto-trust)`, "unsigned");
          continue;
        }
      }
      if (a.kind === "mcp") {
        const why = mcpHold(a, config, opts);
        if (why !== null) {
          hold(a, why.reason, why.cause);
          continue;
        }
      }
      accepted.push(a);
    }
  }
  return { accepted, held };
}
