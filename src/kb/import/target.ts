/**
 * Where an import writes: the KB's store here (local-target.ts) or a running server's tools
 * (src/cli/commands/import-remote.ts). The driver (run.ts) speaks only this interface, so both
 * ways import the same plan the same way.
 */
import type { PlannedAsset, PlannedConcept } from "./types.js";

export interface ChunkWork {
  /** 1-based position and count, for commit messages. */
  index: number;
  count: number;
  concepts: PlannedConcept[];
  /** Attachments of these concepts with their bytes; written only for concepts written. */
  assets: Array<{ asset: PlannedAsset; bytes: Uint8Array }>;
}

export interface Failure {
  /** A concept id or an asset path. */
  what: string;
  message: string;
}

export interface ChunkOutcome {
  written: string[];
  failed: Failure[];
  assetsWritten: string[];
  assetsFailed: Failure[];
}

export interface ImportTarget {
  readonly via: "local" | "server";
  /** Which of `ids` the KB already holds. */
  existingConcepts(ids: readonly string[]): Promise<Set<string>>;
  /** Which of `paths` (asset paths) the KB already holds. */
  existingAssets(paths: readonly string[]): Promise<Set<string>>;
  existingMaps(): Promise<Set<string>>;
  /** Creates maps; returns the failures (the import goes on: a plain folder holds concepts too). */
  createMaps(names: readonly string[]): Promise<Failure[]>;
  writeChunk(work: ChunkWork): Promise<ChunkOutcome>;
  /** Ends the import (the one commit of --commit); returns the commits made in all. */
  finish(): Promise<number>;
}
