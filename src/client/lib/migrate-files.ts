/**
 * The file part of `cartographer upgrade-repair`: the client yaml and the lockfile as a Go
 * client (or an older layout) left them, brought to this client's shape. The original is always
 * kept: the yaml is hard-linked beside itself before the atomic rewrite replaces it, the Go
 * lockfile is moved aside as a writing sync would move it (provision/go-lockfile.ts).
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { Document, parseDocument } from "yaml";
import { readTextOrNull, writeFileAtomic } from "../atomic-file.js";
import { type ClientConfig, isProviderId, parseClientConfig } from "../config.js";
import { ConfigError } from "../errors.js";
import { convertGoClientConfig, isGoClientConfig } from "../go-config.js";
import { moveGoLockfileAside } from "../provision/go-lockfile.js";
import { lockfilePath, readLockfileState } from "../provision/lockfile.js";
import { type CommandIo, tilde } from "./io.js";

export interface FileRepair {
  /** What was (or, dry, would be) done. */
  action: "none" | "missing" | "converted" | "moved";
  /** One line for the summary. */
  message: string;
  /** Things the user should act on (consent not carried over, …). */
  notes: string[];
  /** A converted yaml's configuration (also in a dry run, where it is not written). */
  converted?: ClientConfig;
}

/** Hard-links `file` to the first free `<file>.go`, `<file>.go.2`, …; returns that name. */
async function linkAside(file: string): Promise<string> {
  for (let n = 1; n < 100; n++) {
    const dest = n === 1 ? `${file}.go` : `${file}.go.${n}`;
    try {
      await fs.link(file, dest);
      return dest;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  throw new Error(`${path.dirname(file)} already holds 99 copies of ${path.basename(file)}.go`);
}

/** Converts a Go-shaped client yaml at `file` (dry: says what it would do). */
export async function repairClientConfig(
  io: CommandIo,
  file: string,
  dryRun: boolean,
): Promise<FileRepair> {
  const shown = tilde(io, file);
  const text = await readTextOrNull(file);
  if (text === null) return { action: "missing", message: `${shown}: none`, notes: [] };
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    throw new ConfigError(`${file}: not valid YAML: ${doc.errors[0]?.message}`);
  }
  const raw = doc.toJS();
  if (!isGoClientConfig(raw)) {
    return { action: "none", message: `${shown}: already in this client's shape`, notes: [] };
  }
  const { value, notes } = convertGoClientConfig(raw, isProviderId);
  // Refused before anything is written when the result would not load (names the key).
  const converted = parseClientConfig(value, file);
  if (dryRun) {
    return {
      action: "converted",
      message: `${shown}: would convert from the Go client's shape (original kept as ${shown}.go)`,
      notes,
      converted,
    };
  }
  const aside = await linkAside(file);
  await writeFileAtomic(file, new Document(value).toString(), { within: [path.dirname(file)] });
  return {
    action: "converted",
    message: `${shown}: converted from the Go client's shape (original kept as ${tilde(io, aside)})`,
    notes,
    converted,
  };
}

/** Moves the Go client's lockfile aside (dry: says it would); ours is left as it is. */
export async function repairLockfile(io: CommandIo, dryRun: boolean): Promise<FileRepair> {
  const file = lockfilePath(io.home);
  const shown = tilde(io, file);
  if ((await readTextOrNull(file)) === null) {
    return { action: "missing", message: `${shown}: none`, notes: [] };
  }
  const { go } = await readLockfileState(file, shown);
  if (!go) return { action: "none", message: `${shown}: current format`, notes: [] };
  const note =
    "files the Go client provisioned are not adopted from its records: run the Go client's cartographer disconnect to remove them, or sync --force to overwrite ours (docs/migrating-from-go.md)";
  if (dryRun) {
    return {
      action: "moved",
      message: `${shown}: would move the Go lockfile aside`,
      notes: [note],
    };
  }
  const moved = await moveGoLockfileAside(file, io.home);
  return {
    action: "moved",
    message: `${shown}: the Go lockfile moved to ${tilde(io, moved)} (kept, not read again)`,
    notes: [note],
  };
}
