/**
 * `cartographer import --source DIR --kb NAME|PATH`: brings a folder of Markdown notes (an
 * Obsidian vault, a docs folder) into a KB (docs/import.md). The plan is made here
 * (src/kb/import); a KB a running server holds is written through its tools, a KB folder no
 * process holds through its store, under its lock, as `reindex` decides.
 */
import { existsSync, statSync } from "node:fs";
import { basename, join, relative, resolve, sep } from "node:path";
import type { Command } from "commander";
import { type RemoteServer, runningServer } from "../../client/commands/reindex-remote.js";
import { isKbError } from "../../common/errors.js";
import type { HeldLock } from "../../common/process-lock.js";
import { resolveKbName } from "../../kb/core/kb-name.js";
import { checkFolder, parseMapRule } from "../../kb/import/destinations.js";
import { LocalTarget } from "../../kb/import/local-target.js";
import { buildImportPlan, IMPORT_ASSET_MAX_BYTES } from "../../kb/import/plan.js";
import type { ImportReport } from "../../kb/import/report.js";
import { runImport } from "../../kb/import/run.js";
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_FILES,
  readSourceFile,
  scanSource,
} from "../../kb/import/scan.js";
import type { ImportTarget } from "../../kb/import/target.js";
import { acquireKbLock } from "../../kb/locks/kb-lock.js";
import { openKb } from "../../kb/store/store.js";
import { stderrLogger } from "../../logger.js";
import type { CommandContext } from "../command-context.js";
import { normalizeKbName } from "../config/values.js";
import { CliExit, type CliIo, EXIT_USAGE } from "../io.js";
import { progressReporter } from "../progress.js";
import { clientIo } from "./client.js";
import { reportText } from "./import-output.js";
import { openRemoteTarget } from "./import-remote.js";

export interface ImportFlags {
  source?: string;
  kb?: string;
  defaultMap?: string;
  map?: string[];
  dirAsConcept?: boolean;
  dryRun?: boolean;
  commit?: boolean;
  message?: string;
  json?: boolean;
  maxFiles?: string;
  maxBytes?: string;
  config?: string;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerImportCommand(program: Command, { io, setExit }: CommandContext): void {
  program
    .command("import")
    .description("import a folder of Markdown notes (an Obsidian vault, a docs folder) into a KB")
    .option(
      "--source <dir>",
      "the folder to import (walked recursively; symlinks and hidden folders skipped)",
    )
    .option("--kb <name|path>", "a KB name on the running server, or a KB folder")
    .option("--default-map <map>", "destination map of every source folder no --map names")
    .option(
      "--map <srcdir=map>",
      "destination of a source folder and its subfolders (repeatable)",
      collect,
    )
    .option(
      "--dir-as-concept",
      "a folder holding index.md or README.md becomes one expanded concept",
    )
    .option("--dry-run", "print the plan; write nothing")
    .option(
      "--commit",
      "one commit for the whole import (a KB folder; default: one per chunk of 50)",
    )
    .option("--message <msg>", "the commit message (implies --commit)")
    .option("--json", "print the report as JSON")
    .option("--max-files <n>", `refuse a source with more files (default ${DEFAULT_MAX_FILES})`)
    .option(
      "--max-bytes <n>",
      `refuse a source with more Markdown bytes (default ${DEFAULT_MAX_BYTES})`,
    )
    .option(
      "--config <file>",
      "the client yaml that names the running server (default ~/.cartographer.yaml)",
    )
    .action(async (opts: ImportFlags) => {
      setExit(await importCommand(io, opts));
    });
}

function positive(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new CliExit(EXIT_USAGE, `${flag} ${value}: expected a positive whole number`);
  return n;
}

function sourceFolder(io: CliIo, source: string | undefined): string {
  if (!source) throw new CliExit(EXIT_USAGE, "--source is required: the folder of notes to import");
  const root = resolve(io.cwd, source);
  if (!existsSync(root) || !statSync(root).isDirectory())
    throw new CliExit(
      EXIT_USAGE,
      `--source ${source}: not a folder; pass the folder of notes to import`,
    );
  return root;
}

const inside = (child: string, parent: string) => {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !rel.startsWith(sep));
};

/** A target that holds nothing and writes nothing: a dry run without --kb. */
const NO_KB: ImportTarget = {
  via: "local",
  existingConcepts: async () => new Set(),
  existingAssets: async () => new Set(),
  existingMaps: async () => new Set(),
  createMaps: async () => [],
  writeChunk: async () => ({ written: [], failed: [], assetsWritten: [], assetsFailed: [] }),
  finish: async () => 0,
};

interface Opened {
  target: ImportTarget;
  kb: string;
  release: () => Promise<void>;
}

async function serverTarget(
  io: CliIo,
  flags: ImportFlags,
  server: RemoteServer,
  name: string,
): Promise<Opened> {
  if (flags.commit || flags.message !== undefined)
    throw new CliExit(
      EXIT_USAGE,
      `KB '${name}' is held by the server at ${server.base}, which commits each chunk itself: --commit and --message apply to a KB folder no server holds; drop them, or stop the server`,
    );
  const target = await openRemoteTarget(server, name, clientIo(io).fetch);
  return { target, kb: name, release: () => target.close() };
}

async function localTarget(
  root: string,
  name: string,
  flags: ImportFlags,
  lock: HeldLock | null,
  label: string,
): Promise<Opened> {
  const store = await openKb({ name, root, allowArtifactWrite: false, autocommit: true }).catch(
    async (err: unknown) => {
      await lock?.release();
      throw err;
    },
  );
  const commitOnce = flags.message ?? (flags.commit ? `import: ${label} -> ${name}` : undefined);
  const target = new LocalTarget(store, {
    label,
    ...(commitOnce !== undefined ? { commitOnce } : {}),
  });
  return { target, kb: name, release: async () => lock?.release() };
}

/** The KB `--kb` names: a folder (locally, unless a server holds it) or a running server's KB. */
async function openTarget(
  io: CliIo,
  flags: ImportFlags,
  source: string,
  label: string,
): Promise<Opened> {
  if (flags.kb === undefined) {
    if (flags.dryRun) return { target: NO_KB, kb: "", release: async () => {} };
    throw new CliExit(
      EXIT_USAGE,
      "--kb is required: a KB name on the running server, or a KB folder",
    );
  }
  const folder = resolve(io.cwd, flags.kb);
  if (existsSync(join(folder, "data", "index.md"))) {
    if (inside(source, folder) || inside(folder, source))
      throw new CliExit(
        EXIT_USAGE,
        `--source ${flags.source} and --kb ${flags.kb} overlap: import from a folder outside the KB`,
      );
    const name = normalizeKbName(basename(folder));
    if (flags.dryRun) return localTarget(folder, name, flags, null, label);
    const lock = await acquireKbLock(
      { name, root: folder },
      "import",
      stderrLogger(io.stderr),
    ).then(
      (l): HeldLock | { held: string } => l,
      (err: unknown) => {
        if (!isKbError(err, "locked")) throw err;
        return { held: err.message };
      },
    );
    if (!("held" in lock)) return localTarget(folder, name, flags, lock, label);
    const found = await runningServer(clientIo(io), flags);
    const served = found.server ? resolveKbName(name, found.server.kbs) : null;
    if (found.server === null || served === null)
      throw new CliExit(
        1,
        `${lock.held}; no running server mounts it (${found.server ? `the server at ${found.server.base} has no KB '${name}'` : `${found.base}: ${found.why}`}): stop the process holding it, or point --config at its server`,
      );
    return serverTarget(io, flags, found.server, served);
  }
  const found = await runningServer(clientIo(io), flags);
  if (found.server === null)
    throw new CliExit(
      1,
      `--kb ${flags.kb} is not a KB folder (no data/index.md) and no running server answers at ${found.base} (${found.why}): pass a KB folder, or start the server`,
    );
  const served = resolveKbName(flags.kb, found.server.kbs);
  if (served === null)
    throw new CliExit(
      1,
      `the server at ${found.server.base} has no KB '${flags.kb}'; mounted: ${found.server.kbs.join(", ") || "(none)"}; or pass a KB folder`,
    );
  return serverTarget(io, flags, found.server, served);
}

export async function importCommand(io: CliIo, flags: ImportFlags): Promise<number> {
  const root = sourceFolder(io, flags.source);
  const maps = (flags.map ?? []).map(parseMapRule);
  if (flags.defaultMap !== undefined) checkFolder("--default-map", flags.defaultMap);
  const limits = {
    maxFiles: positive("--max-files", flags.maxFiles, DEFAULT_MAX_FILES),
    maxBytes: positive("--max-bytes", flags.maxBytes, DEFAULT_MAX_BYTES),
  };
  const scan = await scanSource(root, limits);
  const label = basename(root);
  const plan = buildImportPlan(scan, {
    sourceName: label,
    maps,
    ...(flags.defaultMap !== undefined ? { defaultMap: flags.defaultMap } : {}),
    dirAsConcept: flags.dirAsConcept === true,
  });
  plan.errors.unshift(...scan.problems);
  const opened = await openTarget(io, flags, root, label);
  const progress = progressReporter(io.stderr, "import");
  let report: ImportReport;
  try {
    report = await runImport(plan, opened.target, {
      dryRun: flags.dryRun === true,
      symlinks: scan.symlinks,
      readAsset: (asset) =>
        readSourceFile(root, { rel: asset.source, size: asset.size }, IMPORT_ASSET_MAX_BYTES),
      progress: progress.update,
    });
  } finally {
    progress.done();
    await opened.release();
  }
  if (flags.json)
    io.stdout.write(
      `${JSON.stringify({ source: flags.source, kb: opened.kb, ...report }, null, 2)}\n`,
    );
  else io.stdout.write(reportText(report));
  return report.errors.length > 0 ? 1 : 0;
}
