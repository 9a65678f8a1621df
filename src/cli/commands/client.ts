/**
 * The client commands: connect agent tools (Claude Code, Codex CLI, OpenCode, Kiro, Antigravity)
 * to a server and keep them in sync. They talk to the server over HTTP only (src/client).
 */
import { homedir, userInfo } from "node:os";
import type { Command } from "commander";
import { approve } from "../../client/commands/approve.js";
import { connect } from "../../client/commands/connect.js";
import { disconnect } from "../../client/commands/disconnect.js";
import { doctor } from "../../client/commands/doctor.js";
import { reconnect } from "../../client/commands/reconnect.js";
import { resolve as resolveCommand } from "../../client/commands/resolve.js";
import { revoke } from "../../client/commands/revoke.js";
import { status } from "../../client/commands/status.js";
import { sync } from "../../client/commands/sync.js";
import { trust } from "../../client/commands/trust.js";
import { type UpgradeRepairDeps, upgradeRepair } from "../../client/commands/upgrade-repair.js";
import type { Scope } from "../../client/config.js";
import type { CommandIo } from "../../client/lib/io.js";
import { parsePinKeys } from "../../client/provision/trust.js";
import { serviceManager } from "../../client/service/manager.js";
import { execRunner } from "../../client/service/runner.js";
import { VERSION } from "../../version.js";
import type { CommandContext } from "../command-context.js";
import { CliExit, type CliIo, EXIT_USAGE } from "../io.js";
import { type ApproveFlags, approveForm, onlyApprovalKb } from "./approve-forms.js";
import { offerService } from "./service-offer.js";

export function clientIo(io: CliIo): CommandIo {
  return {
    home: io.env.HOME ?? homedir(),
    cwd: io.cwd,
    env: io.env,
    stdout: io.stdout,
    stderr: io.stderr,
  };
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `--pin-key` values as `{kb: [keys]}`; a malformed one is a usage error. */
function pinKeysOf(values: string[] | undefined): Record<string, string[]> | undefined {
  if (!values || values.length === 0) return undefined;
  try {
    return parsePinKeys(values);
  } catch (err) {
    throw new CliExit(EXIT_USAGE, (err as Error).message);
  }
}

const PIN_KEY_HELP =
  "pin a KB's Ed25519 public key (64 hex; repeatable) and save it in signing_keys: its signed artifacts must verify with it";
const AUTO_TRUST_HELP =
  "accept unsigned KB artifacts for this run only (not saved; see cartographer trust)";

/** `--config` of every client command. */
export const CONFIG_HELP = "client config (default: ~/.cartographer.yaml)";

const AGENTS_HELP = "providers as a comma list (Go's spelling), added to the positional ones";

const FORCE_HELP =
  "overwrite skills, agents and hook files you edited (and files in their place not written by cartographer)";

/** The native service upgrade-repair checks: none where neither systemd nor launchd exists. */
function upgradeDeps(io: CliIo): UpgradeRepairDeps {
  const { platform } = process;
  if (platform !== "linux" && platform !== "darwin") return {};
  const host = { platform, home: io.env.HOME ?? homedir(), uid: userInfo().uid, run: execRunner() };
  return { service: { manager: serviceManager(host), version: VERSION, timeoutMs: 30_000 } };
}

const list = (value: string) =>
  value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

export function registerClientCommands(program: Command, { io, setExit }: CommandContext): void {
  const configOption = "--config <file>";
  const configHelp = CONFIG_HELP;
  program
    .command("connect [providers...]")
    .description(
      "write the MCP entry and instructions of agent tools: claude, codex, opencode, kiro, antigravity, or all",
    )
    .option(configOption, configHelp)
    .option("--kbs <list>", "bind these KBs (comma list; empty = all)", list)
    .option("--agents <list>", AGENTS_HELP, list)
    .option("--server-url <url>", "server URL (default: saved, else http://127.0.0.1:39273)")
    .option(
      "--token-env <name>",
      "NAME of the env var holding the bearer token (the token itself is never written)",
    )
    .option("--scope <scope>", "user (default) or project")
    .option("--dry-run", "print what would be written, write nothing")
    .option("--write-token", "antigravity only: write the literal token (file mode 0600)")
    .option("--pin-key <kb=key>", PIN_KEY_HELP, collect)
    .option("--auto-trust", AUTO_TRUST_HELP)
    .option("--force", FORCE_HELP)
    .option(
      "--bootstrap-hook",
      "add a SessionStart hook that runs cartographer sync quietly when it is on PATH (saved)",
    )
    .option("--no-bootstrap-hook", "remove that hook (saved)")
    .action(
      async (
        providers: string[],
        opts: {
          config?: string;
          kbs?: string[];
          agents?: string[];
          serverUrl?: string;
          tokenEnv?: string;
          scope?: string;
          dryRun?: boolean;
          writeToken?: boolean;
          pinKey?: string[];
          autoTrust?: boolean;
          force?: boolean;
          bootstrapHook?: boolean;
        },
      ) => {
        if (opts.scope !== undefined && opts.scope !== "user" && opts.scope !== "project") {
          throw new CliExit(
            EXIT_USAGE,
            `--scope: '${opts.scope}' is not a scope; use user or project`,
          );
        }
        const { pinKey, agents, ...rest } = opts;
        const pinKeys = pinKeysOf(pinKey);
        const code = await connect(clientIo(io), {
          ...rest,
          scope: opts.scope as Scope | undefined,
          providers: [...providers, ...(agents ?? [])],
          ...(pinKeys ? { pinKeys } : {}),
        });
        // Nothing on a loopback URL: offer the user service (service-offer.ts).
        if (code !== 0) await offerService(io, opts);
        setExit(code);
      },
    );
  program
    .command("sync")
    .description("re-apply entries and instructions from the server's live /health")
    .option(configOption, configHelp)
    .option("--pin-key <kb=key>", PIN_KEY_HELP, collect)
    .option("--auto-trust", AUTO_TRUST_HELP)
    .option("--force", FORCE_HELP)
    .action(
      async (opts: {
        config?: string;
        pinKey?: string[];
        autoTrust?: boolean;
        force?: boolean;
      }) => {
        const { pinKey, ...rest } = opts;
        const pinKeys = pinKeysOf(pinKey);
        setExit(await sync(clientIo(io), { ...rest, ...(pinKeys ? { pinKeys } : {}) }));
      },
    );
  program
    .command("status")
    .description(
      "compare written entries with the server and check the agent tools can use them (token, Codex trust); exit 0 in sync, 1 drift or blocked, 2 error",
    )
    .option(configOption, configHelp)
    .option("--json", "print JSON")
    .action(async (opts: { config?: string; json?: boolean }) =>
      setExit(await status(clientIo(io), opts)),
    );
  program
    .command("doctor")
    .description(
      "offline check of every provider file against the saved config (in-sync, partial, missing), the token variable and Codex trust",
    )
    .option(configOption, configHelp)
    .option("--json", "print JSON")
    .action(async (opts: { config?: string; json?: boolean }) =>
      setExit(await doctor(clientIo(io), opts)),
    );
  program
    .command("reconnect")
    .description(
      "disconnect, then connect again with the saved settings (after a server topology change)",
    )
    .option(configOption, configHelp)
    .action(async (opts: { config?: string }) => setExit(await reconnect(clientIo(io), opts)));
  program
    .command("disconnect [providers...]")
    .description("remove exactly what connect wrote (entries and instructions block); idempotent")
    .option(configOption, configHelp)
    .option("--agents <list>", AGENTS_HELP, list)
    .action(async (providers: string[], opts: { config?: string; agents?: string[] }) => {
      const { agents, ...rest } = opts;
      setExit(
        await disconnect(clientIo(io), { ...rest, providers: [...providers, ...(agents ?? [])] }),
      );
    });
  program
    .command("trust [kb]")
    .description(
      "consent to write a KB's unsigned skills, agents, hooks and instructions (saved in trust); without a KB, list what is trusted, pinned and approved",
    )
    .option(configOption, configHelp)
    .option("--revoke", "withdraw the consent")
    .option(
      "--pin-key-from-server",
      "pin the signing key the server names for the KB (trust on first use; prints the key id to compare)",
    )
    .option("--json", "print JSON")
    .action(
      async (
        kb: string | undefined,
        opts: { config?: string; revoke?: boolean; pinKeyFromServer?: boolean; json?: boolean },
      ) => setExit(await trust(clientIo(io), { ...opts, ...(kb !== undefined ? { kb } : {}) })),
    );
  program
    .command("approve <words...>")
    .usage("<kb> <name> | mcp <name> --kb <kb> [--yes] | revoke mcp <name> [--kb <kb>]")
    .description(
      "show a KB's MCP server descriptor (transport, URL or command, env and header names) and approve that exact descriptor for sync; Go's forms `approve mcp <name> --kb <kb> [--yes]` and `approve revoke mcp <name> --kb <kb>` work too",
    )
    .option(configOption, configHelp)
    .option("--kb <kb>", "the KB (Go's form)")
    .option("--yes", "accepted for Go's form: approving never asks here")
    .option("--json", "print JSON")
    .action(async (words: string[], opts: ApproveFlags) => {
      const form = approveForm(words, opts);
      const common = { ...(opts.config ? { config: opts.config } : {}), json: opts.json };
      if (form.revoke) {
        const kb = form.kb ?? (await onlyApprovalKb(io, opts.config, form.name));
        setExit(await revoke(clientIo(io), { ...common, kb, name: form.name }));
      } else {
        setExit(await approve(clientIo(io), { ...common, kb: form.kb, name: form.name }));
      }
    });
  program
    .command("revoke <kb> <name>")
    .description("withdraw the approval of a KB's MCP server descriptor; the next sync removes it")
    .option(configOption, configHelp)
    .option("--json", "print JSON")
    .action(async (kb: string, name: string, opts: { config?: string; json?: boolean }) =>
      setExit(await revoke(clientIo(io), { ...opts, kb, name })),
    );
  program
    .command("resolve <ref>")
    .description(
      "print the local path of a {{repo:<key>}} or {{path:<name>}} placeholder (offline); exit 1 unresolved",
    )
    .option(configOption, configHelp)
    .option("--json", "print JSON")
    .option("--rescan", "scan search_roots again instead of trusting the cached index")
    .action(async (ref: string, opts: { config?: string; json?: boolean; rescan?: boolean }) =>
      setExit(await resolveCommand(clientIo(io), ref, opts)),
    );
  program
    .command("upgrade-repair")
    .description(
      "after an upgrade: convert a Go client's yaml and lockfile, restart an outdated native service, sync the providers of a local server",
    )
    .option(configOption, configHelp)
    .option("--dry-run", "say what would be done; write, restart and sync nothing")
    .action(async (opts: { config?: string; dryRun?: boolean }) =>
      setExit(await upgradeRepair(clientIo(io), opts, upgradeDeps(io))),
    );
}
