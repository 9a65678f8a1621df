/**
 * The two spellings of `cartographer approve`: ours, `approve <kb> <name>`, and Go's,
 * `approve mcp <name> --kb <kb> [--yes]` / `approve revoke mcp <name> [--kb <kb>]`. Go's form is
 * told apart by `--kb` (or the leading `revoke`); without `--kb`, `approve mcp x` is ours (a KB
 * named `mcp`), so Go's `--yes` alone is refused rather than guessed.
 */
import { homedir } from "node:os";
import { resolve } from "node:path";
import { defaultConfigPath, loadConfig } from "../../client/config.js";
import { CliExit, type CliIo, EXIT_USAGE } from "../io.js";

export interface ApproveFlags {
  config?: string;
  kb?: string;
  yes?: boolean;
  json?: boolean;
}

export type ApproveForm =
  | { revoke: false; kb: string; name: string }
  | { revoke: true; kb?: string; name: string };

const USAGE =
  "use cartographer approve <kb> <name>, or Go's approve mcp <name> --kb <kb> [--yes] / approve revoke mcp <name> [--kb <kb>]";

export function approveForm(words: readonly string[], flags: ApproveFlags): ApproveForm {
  const [first, second, third, ...extra] = words;
  if (first === "revoke") {
    if (second !== "mcp" || third === undefined || extra.length > 0)
      throw new CliExit(EXIT_USAGE, `approve revoke: ${USAGE}`);
    return { revoke: true, name: third, ...(flags.kb ? { kb: flags.kb } : {}) };
  }
  if (first === undefined || second === undefined || third !== undefined)
    throw new CliExit(EXIT_USAGE, `approve: ${USAGE}`);
  if (flags.kb !== undefined) {
    if (first !== "mcp")
      throw new CliExit(
        EXIT_USAGE,
        `approve: --kb goes with Go's form approve mcp <name>; ${USAGE}`,
      );
    return { revoke: false, kb: flags.kb, name: second };
  }
  if (flags.yes) throw new CliExit(EXIT_USAGE, `approve: Go's form needs --kb <kb> here; ${USAGE}`);
  return { revoke: false, kb: first, name: second };
}

/** Go's `approve revoke mcp <name>` without `--kb`: the one KB it is approved for. */
export async function onlyApprovalKb(
  io: CliIo,
  config: string | undefined,
  name: string,
): Promise<string> {
  const file = config ? resolve(io.cwd, config) : defaultConfigPath(io.env.HOME ?? homedir());
  const { config: client } = await loadConfig(file);
  const kbs = [
    ...new Set((client.approvals ?? []).filter((a) => a.name === name).map((a) => a.kb)),
  ];
  if (kbs.length === 1) return kbs[0] as string;
  throw new CliExit(
    EXIT_USAGE,
    kbs.length === 0
      ? `approve revoke: MCP server ${name} is not approved for any KB; nothing to revoke`
      : `approve revoke: MCP server ${name} is approved for KBs ${kbs.join(", ")}; pass --kb <kb>`,
  );
}
