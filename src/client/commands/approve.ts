import { loadConfig, saveConfig } from "../config.js";
import { ConfigError } from "../errors.js";
import {
  type CommandIo,
  type CommonOptions,
  configPath,
  EXIT_OK,
  reportFailure,
} from "../lib/io.js";
import {
  approvalState,
  commandProblem,
  type DescriptorView,
  describeDescriptor,
  readDescriptor,
  withApproval,
} from "../provision/approvals.js";
import { fetchKbManifest } from "../provision/kb-manifest.js";
import { printable } from "../provision/manifest-shape.js";
import { evaluateTrust, pinnedKeys } from "../provision/trust.js";

export interface ApproveOptions extends CommonOptions {
  kb: string;
  name: string;
  json?: boolean;
}

function jsonView(view: DescriptorView) {
  return {
    type: view.type,
    ...(view.url !== undefined ? { url: view.url } : {}),
    ...(view.command !== undefined ? { command: view.command } : {}),
    ...(view.args !== undefined ? { args: view.args } : {}),
    env_names: view.envNames,
    header_names: view.headerNames,
  };
}

/**
 * `cartographer approve <kb> <name> [--json]`: fetches the KB's manifest, shows the MCP server
 * descriptor (transport, URL or command, the NAMES of env variables and headers — never their
 * values) and records `{kb, name, content_hash}` in `.cartographer.yaml`. The next sync writes
 * that exact descriptor; a changed one is held until approved again. Refuses a name the
 * manifest does not offer, saying why the server left it out when it did.
 */
export async function approve(io: CommandIo, opts: ApproveOptions): Promise<number> {
  try {
    const loaded = await loadConfig(configPath(io, opts));
    if (!loaded.exists) {
      throw new ConfigError(`${loaded.file} does not exist; run cartographer connect first`);
    }
    const manifest = await fetchKbManifest(io, loaded.config, opts.kb);
    const artifact = manifest.artifacts.find((a) => a.kind === "mcp" && a.name === opts.name);
    if (!artifact) {
      const skipped = manifest.skipped.find((s) => s.kind === "mcp" && s.name === opts.name);
      const offered = manifest.artifacts.filter((a) => a.kind === "mcp").map((a) => a.name);
      const list = `MCP servers KB ${opts.kb} offers: ${offered.join(", ") || "none"}`;
      throw new ConfigError(
        skipped
          ? `the server does not offer MCP server ${printable(opts.name)} of KB ${opts.kb}: ${skipped.reason}; nothing approved (${list})`
          : `KB ${opts.kb} has no MCP server ${printable(opts.name)}; nothing approved (${list})`,
      );
    }
    const read = readDescriptor(artifact);
    if ("error" in read) {
      throw new ConfigError(
        `MCP server ${opts.name} of KB ${opts.kb} cannot be placed: ${read.error}; nothing approved`,
      );
    }
    // With pinned keys, a descriptor whose signature fails is never approved (throws untrusted).
    const verified = pinnedKeys(loaded.config, opts.kb).length > 0;
    if (verified) {
      evaluateTrust([{ ...manifest, artifacts: [artifact] }], loaded.config, { autoTrust: true });
    }
    const before = approvalState(loaded.config.approvals, artifact);
    if (before !== "approved") {
      await saveConfig(
        loaded,
        withApproval(loaded.config, opts.kb, opts.name, artifact.contentHash),
      );
    }
    const trusted = artifact.signature !== null || (loaded.config.trust ?? []).includes(opts.kb);
    const notes: string[] = [];
    if (!trusted) {
      notes.push(
        `KB ${opts.kb} is not trusted: its unsigned artifacts (this one too) wait for cartographer trust ${opts.kb} or --auto-trust`,
      );
    }
    const missing = read.view.command ? commandProblem(read.view.command, io.env) : null;
    if (missing)
      notes.push(`${missing}; until then the sync holds it (it is never run by the client)`);
    if (opts.json) {
      io.stdout.write(
        `${JSON.stringify({
          state: before === "approved" ? "already-approved" : "approved",
          kb: opts.kb,
          name: opts.name,
          content_hash: artifact.contentHash,
          signed: artifact.signature !== null,
          verified,
          descriptor: jsonView(read.view),
          notes,
        })}\n`,
      );
      return EXIT_OK;
    }
    io.stdout.write(
      `MCP server ${opts.name} of KB ${opts.kb} (${artifact.signature ? (verified ? "signature verified with a pinned key" : "signed, key not pinned") : "unsigned"}, content hash ${artifact.contentHash.slice(0, 12)}…):\n`,
    );
    for (const line of describeDescriptor(read.view)) io.stdout.write(`  ${line}\n`);
    io.stdout.write(
      before === "approved"
        ? "already approved: this exact descriptor is recorded\n"
        : `${before === "changed" ? "approved again (it changed since the last approval)" : "approved"}: the next cartographer sync writes it into the agent tools\n`,
    );
    for (const note of notes) io.stdout.write(`note: ${note}\n`);
    return EXIT_OK;
  } catch (err) {
    return reportFailure(io, err, opts.json);
  }
}
