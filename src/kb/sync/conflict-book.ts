/**
 * The open conflicts of one KB as the sync holds them: the registry file
 * (`.cartographer/conflicts.json`, conflicts.ts) kept in step with memory, and `status:
 * degraded` written into each conflicting concept's work-tree file (re-indexed, never
 * committed) so that readers see the concept is in dispute.
 */
import type { Logger } from "../../logger.js";
import { type ConflictEntry, markDegraded, registerConflict, writeConflicts } from "./conflicts.js";

interface BookDeps {
  kb: string;
  root: string;
  logger: Logger;
  /** HEAD or the work tree moved: re-index exactly these KB-root-relative paths. */
  onHeadMoved: (paths: string[]) => Promise<void>;
}

export class ConflictBook {
  private entries: ConflictEntry[] = [];

  constructor(private readonly deps: BookDeps) {}

  get all(): readonly ConflictEntry[] {
    return this.entries;
  }

  get count(): number {
    return this.entries.length;
  }

  /** The registry read at open (trusted entries only), its markers written again. */
  async load(entries: ConflictEntry[]): Promise<void> {
    this.entries = entries;
    // A finalize interrupted after it removed the markers: they come back.
    await this.markConflicting(entries);
  }

  /** Registers a failed rebase's files; returns the concept ids newly in conflict. */
  async register(
    files: string[],
    localSha: string,
    remoteSha: string,
    at: Date,
  ): Promise<string[]> {
    this.entries = registerConflict(this.entries, { files, localSha, remoteSha, at });
    await writeConflicts(this.deps.root, this.entries);
    const added = this.entries.filter((e) => files.includes(e.path));
    await this.markConflicting(added);
    return this.announce(added);
  }

  /**
   * Replaces the registry (git_conflict_resolve); `detected` names the paths just registered (a
   * finalizing merge that met new conflicts). Returns the ids announced, or null without any
   * detected.
   */
  async replace(entries: ConflictEntry[], detected: readonly string[]): Promise<string[] | null> {
    this.entries = entries;
    await writeConflicts(this.deps.root, entries);
    if (detected.length === 0) return null;
    return this.announce(entries.filter((e) => detected.includes(e.path)));
  }

  /** The log line for newly registered entries; returns their ids. */
  private announce(added: readonly ConflictEntry[]): string[] {
    const ids = added.map((e) => e.concept_id);
    this.deps.logger.warn(
      `sync of KB '${this.deps.kb}': rebase conflict on ${ids.join(", ")}; registered in .cartographer/conflicts.json, pushes paused until resolved`,
    );
    return ids;
  }

  private async markConflicting(entries: readonly ConflictEntry[]): Promise<void> {
    const marked = await markDegraded(this.deps.root, entries).catch(() => []);
    if (marked.length > 0) await this.deps.onHeadMoved(marked).catch(() => {});
  }
}
