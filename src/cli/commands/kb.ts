/** `cartographer kb create|clone|resync|list`: make, clone, resync and list KBs in a data directory. */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { initKb } from "../../kb/store/init.js";
import { redactRemote } from "../../kb/sync/remote-access.js";
import type { CommandContext } from "../command-context.js";
import { kbFoldersIn } from "../config/kb-specs.js";
import { settingsFrom } from "../config/pick.js";
import { EMBEDDED_DATA_DIR } from "../config/resolve.js";
import { remoteKbName } from "../config/sync-keys.js";
import { normalizeKbName } from "../config/values.js";
import { CliExit, type CliIo, EXIT_USAGE } from "../io.js";
import { cloneKb, serverSyncConfig, syncSettingsFor } from "./kb-clone.js";
import { resyncCommand } from "./kb-resync.js";

/** The data directory: --data, else CARTOGRAPHER_DATA, else ./cartographer-data (pick.ts). */
export function dataDirOf(io: CliIo, flag?: string): string {
  const data = settingsFrom(io.env).pick(
    { flag: ["--data", flag], env: "CARTOGRAPHER_DATA" },
    EMBEDDED_DATA_DIR,
  );
  return resolve(io.cwd, data.value);
}

export function validateKbName(name: string): void {
  if (name !== normalizeKbName(name) || name === "") {
    throw new CliExit(
      EXIT_USAGE,
      `kb name '${name}' is not valid: use letters, digits, '-' and '_' (e.g. '${normalizeKbName(name) || "notes"}')`,
    );
  }
  if (name === "routed") {
    throw new CliExit(
      EXIT_USAGE,
      "kb name 'routed' is reserved: it collides with the /mcp/routed endpoint; choose another name",
    );
  }
}

export async function createKb(
  io: CliIo,
  name: string,
  dataFlag?: string,
  title?: string,
): Promise<string> {
  validateKbName(name);
  const root = join(dataDirOf(io, dataFlag), name);
  if (existsSync(root)) {
    throw new CliExit(EXIT_USAGE, `${root} already exists; choose another name or remove it first`);
  }
  await initKb(root, { title: title ?? name });
  return root;
}

export function registerKbCommands(program: Command, { io }: CommandContext): void {
  const kb = program
    .command("kb")
    .description("create and list knowledge bases in a data directory");
  kb.command("create <name>")
    .description("create a KB <data>/<name>: layout, git repository, first commit")
    .option("--data <dir>", "data directory (default: $CARTOGRAPHER_DATA or ./cartographer-data)")
    .option("--title <title>", "title of the root index")
    .action(async (name: string, opts: { data?: string; title?: string }) => {
      const root = await createKb(io, name, opts.data, opts.title);
      io.stdout.write(`created KB '${name}' at ${root}\n`);
    });
  kb.command("clone <url> [name]")
    .description(
      "clone a remote KB into <data>/<name> (name: the URL's last segment without .git); serve then syncs it",
    )
    .option("--name <name>", "KB name (default: from the URL; Go's positional [name] also works)")
    .option("--data <dir>", "data directory (default: $CARTOGRAPHER_DATA or ./cartographer-data)")
    .action(
      async (
        url: string,
        positional: string | undefined,
        opts: { name?: string; data?: string },
      ) => {
        if (positional !== undefined && opts.name !== undefined && positional !== opts.name)
          throw new CliExit(
            EXIT_USAGE,
            `kb clone: the name is given twice ('${positional}', --name '${opts.name}'); give one`,
          );
        const name = positional ?? opts.name ?? remoteKbName(url);
        validateKbName(name);
        const root = join(dataDirOf(io, opts.data), name);
        if (existsSync(root))
          throw new CliExit(
            EXIT_USAGE,
            `${root} already exists; choose another --name or remove it first`,
          );
        const sync = serverSyncConfig(io);
        try {
          await cloneKb(url, root, syncSettingsFor({ sync }, { name }, io.env));
        } catch (err) {
          throw new CliExit(1, `cannot clone ${redactRemote(url)}: ${(err as Error).message}`);
        }
        io.stdout.write(`cloned KB '${name}' into ${root}\n`);
      },
    );
  kb.command("resync <kb>")
    .description(
      "after a force-push stopped a KB's sync (state diverged): keep the remote, re-apply only this server's unpushed commits (stop its server first)",
    )
    .option("--data <dir>", "data directory (default: $CARTOGRAPHER_DATA or ./cartographer-data)")
    .action(async (name: string, opts: { data?: string }) => {
      await resyncCommand(io, name, dataDirOf(io, opts.data));
    });
  kb.command("list")
    .description("list the KBs of a data directory")
    .option("--data <dir>", "data directory (default: $CARTOGRAPHER_DATA or ./cartographer-data)")
    .option("--json", "print JSON")
    .action((opts: { data?: string; json?: boolean }) => {
      const dir = dataDirOf(io, opts.data);
      if (!existsSync(dir))
        throw new CliExit(
          EXIT_USAGE,
          `data directory ${dir} does not exist; create a KB with 'cartographer kb create <name> --data ${dir}'`,
        );
      const kbs = kbFoldersIn(dir).map((root) => ({
        name: normalizeKbName(root.split(/[\\/]/).pop() ?? ""),
        path: root,
      }));
      if (opts.json) io.stdout.write(`${JSON.stringify(kbs)}\n`);
      else if (kbs.length === 0) io.stdout.write(`no KBs in ${dir}\n`);
      else for (const k of kbs) io.stdout.write(`${k.name}\t${k.path}\n`);
    });
}
