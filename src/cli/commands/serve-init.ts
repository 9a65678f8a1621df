/**
 * `serve --init` / YAML `init: true` (Go's `init`; docs/decisions.md "`init` turns only EMPTY
 * subfolders"): before the KBs are opened,
 *  - every named KB (`--kb`, `kbs[].path`) that is not a KB yet is created;
 *  - a missing data directory is created, and every EMPTY subfolder of it becomes a KB.
 * KBs are made by initKb, the function behind `cartographer kb create`. A non-empty folder that is
 * not a KB gets the layout written into it, never overwriting a file (as Go; init-in-place.ts).
 * An empty data directory stays empty: the server starts with no KB (Go did the same).
 * A KB with a `remote` is never initialized here: it is cloned (as in Go, clone comes first),
 * and an empty folder waiting for its clone must stay empty.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { initKb } from "../../kb/store/init.js";
import type { Logger } from "../../logger.js";
import type { ServerConfig } from "../config/types.js";
import { normalizeKbName } from "../config/values.js";

const isKb = (root: string) => existsSync(join(root, "data", "index.md"));

/** Creates what `init` asks for; returns how many KBs it created (the caller then re-resolves). */
export async function initForServe(config: ServerConfig, logger: Logger): Promise<number> {
  // `remote` exists once remote sync is configured (docs/sync.md); read loosely on purpose.
  const clones = new Set(
    config.kbs.filter((kb) => (kb as { remote?: string }).remote).map((kb) => kb.root),
  );
  let created = 0;
  for (const kb of config.kbs) {
    if (isKb(kb.root) || clones.has(kb.root)) continue;
    await initKb(kb.root, {
      title: kb.name,
      inPlace: true,
      ...(kb.gitAuthor ? { identity: kb.gitAuthor } : {}),
    });
    logger.info(`created KB '${kb.name}' at ${kb.root}`);
    created++;
  }
  if (config.dataDir && !config.embeddedDefault)
    created += await initDataDir(config.dataDir, clones, logger);
  return created;
}

async function initDataDir(
  dataDir: string,
  clones: ReadonlySet<string>,
  logger: Logger,
): Promise<number> {
  if (!existsSync(dataDir)) {
    mkdirSync(dataDir, { recursive: true });
    logger.info(`created the data directory ${dataDir}`);
  }
  let created = 0;
  for (const entry of readdirSync(dataDir).sort()) {
    if (entry.startsWith(".")) continue;
    const root = join(dataDir, entry);
    // lstat: a symlink is never followed, so init never writes outside the data directory.
    if (!lstatSync(root).isDirectory() || isKb(root) || clones.has(root)) continue;
    const inPlace = readdirSync(root).length > 0;
    const name = normalizeKbName(basename(root));
    await initKb(root, { title: name || entry, inPlace });
    logger.info(
      `created KB '${name}' at ${root} (init: ${inPlace ? "layout written into a folder" : "empty folder"} of the data directory)`,
    );
    created++;
  }
  return created;
}
