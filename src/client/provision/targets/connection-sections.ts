/**
 * The cartographer entry, its removal from a provider's former MCP files, and the instructions
 * block, as managed sections (pure): the provisioning engine plans, writes and records them in
 * the lockfile like every other section (docs/decisions.md "Structure: client write engine").
 *
 * They are `converge` sections: connect's own part, rewritten whenever it differs and removed
 * whenever nothing renders it, with or without a lock record (connect never kept the user's
 * edits of its entry; an entry written before the lockfile recorded it is still ours).
 * The entry is edited by the provider's adapter, which keeps the user's own keys of an entry
 * (a timeout, Kiro's `autoApprove`), so its `read` answers `desired` exactly when rewriting the
 * file would change nothing.
 */
import type { ProviderId } from "../../config.js";
import { applyBlock, currentBlock, removeBlock } from "../../instructions.js";
import { isBareConfig } from "../../leftovers.js";
import { type EntrySpec, isOwnedEntry } from "../../topology.js";
import type { ManagedSection, RenderResult } from "../types.js";
import { canonicalJson } from "./mcp-entry.js";
import type { AuthRef, ProviderAdapter, ProviderFiles } from "./provider.js";

/** Section ids of connect's own part; no artifact section is named so. */
export const ENTRY_SECTION = "connect:entry";
export const BLOCK_SECTION = "connect:instructions";

/** True for a section of connect's own part (lockfile records, plans). */
export function isConnectionSection(s: { id: string }): boolean {
  return s.id === ENTRY_SECTION || s.id === BLOCK_SECTION;
}

export interface ConnectionSpec {
  provider: ProviderAdapter;
  files: ProviderFiles;
  serverName: string;
  /** The entries to write; empty removes every entry the client may own. */
  entries: readonly EntrySpec[];
  auth: AuthRef;
  /** The rendered instructions block; null removes ours. */
  block: string | null;
}

/** The entry names in `text` the client may own (both shapes, D187). */
function ownedNames(spec: ConnectionSpec, text: string | null, file: string): string[] {
  return [...spec.provider.listEntries(text, file)]
    .filter(([name, url]) => isOwnedEntry(spec.serverName, name, url))
    .map(([name]) => name);
}

/** The entries of `file`: `add` written (after every owned name is removed), or none. */
function entrySection(spec: ConnectionSpec, file: string, add: readonly EntrySpec[]) {
  const { provider, auth } = spec;
  const writing = add.length > 0;
  const mode = writing ? provider.fileMode(auth) : undefined;
  const apply = (text: string | null) =>
    provider.applyEntries(text, file, ownedNames(spec, text, file), [...add], writing ? auth : {});
  // The literal token is never part of a section's text: the lockfile hashes that text.
  const desired = writing
    ? canonicalJson({
        entries: add,
        tokenEnv: auth.tokenEnv ?? null,
        literalToken: auth.literalToken !== undefined,
      })
    : null;
  const section: ManagedSection = {
    file,
    id: ENTRY_SECTION,
    desired,
    origins: [`${spec.serverName}/entry`],
    converge: true,
    bare: isBareConfig,
    read(text) {
      const owned = ownedNames(spec, text, file);
      // A forced mode (0600 for a literal token) is set on every write, as connect always did.
      if (desired !== null && text !== null && mode === undefined && apply(text) === text)
        return desired;
      return owned.length > 0 ? canonicalJson({ owned }) : null;
    },
    write: (text) => apply(text),
  };
  if (mode !== undefined) section.mode = mode;
  return section;
}

function blockSection(spec: ConnectionSpec, id: ProviderId): ManagedSection {
  const { block, serverName } = spec;
  return {
    file: spec.files.instructions,
    id: BLOCK_SECTION,
    desired: block,
    origins: [`${serverName}/instructions`],
    converge: true,
    // removeBlock gives null when nothing else remains: the file is then ours to remove.
    bare: (text) => text === "",
    read: (text) => currentBlock(text, serverName, id) ?? null,
    write: (text, section) =>
      section === null
        ? (removeBlock(text, serverName, id) ?? "")
        : applyBlock(text, section, serverName, id),
  };
}

/**
 * Connect's sections for one provider binding, in the order they are written: the entries, the
 * provider's former MCP files cleared of ours, the instructions block. Each file is a root of
 * its own: it may be reached through a symlink that stays inside the user's folders (a
 * dotfiles repository), which is written through (docs/decisions.md "Client").
 */
export function connectionRender(spec: ConnectionSpec): RenderResult {
  const { files } = spec;
  const legacy = files.legacyConfigs ?? [];
  const sections = [
    entrySection(spec, files.config, spec.entries),
    ...legacy.map((file) => entrySection(spec, file, [])),
    blockSection(spec, spec.provider.id),
  ];
  return {
    roots: [...new Set([files.config, ...legacy, files.instructions])],
    files: [],
    sections,
    notes: [],
  };
}
