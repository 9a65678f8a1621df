/**
 * Map descriptors are read on every concept read (placement, validation). Parsing every
 * `_map.md` each time cost more than the read itself, so descriptors are cached behind cheap
 * signatures that also pick up edits made outside the server (docs/decisions.md "Map descriptors
 * are cached behind a signature of folder names and descriptor sizes/mtimes"):
 * - the whole list (`get`): the top-level folders and each descriptor file's size and mtime (ns);
 * - one map (`forId`, the concept read path): the stats of `data/`, `data/<map>` and its
 *   descriptor, checked on every call, so a read pays three stats instead of a listing of data/
 *   and a stat per map folder (docs/decisions.md "A concept read checks its own map only").
 */
import { lstatSync, readdirSync, type Stats, statSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../../logger.js";
import { LEGACY_MAP_FILE, MAP_FILE } from "../core/maps.js";
import type { MapDescriptor } from "../core/types.js";
import { loadMap, loadMaps } from "./store-read.js";

/** Maps remembered by `forId` at most (a KB has a handful; the bound keeps odd ids cheap). */
const MAX_SINGLE_MAPS = 256;

interface SingleMap {
  signature: string;
  value: Promise<MapDescriptor | null>;
}

export class MapsCache {
  private signature: string | null = null;
  private value: Promise<MapDescriptor[]> | null = null;
  private readonly single = new Map<string, SingleMap>();

  constructor(
    private readonly root: string,
    private readonly logger: Logger,
  ) {}

  get(): Promise<MapDescriptor[]> {
    const signature = this.currentSignature();
    if (signature === null || signature !== this.signature || this.value === null) {
      this.signature = signature;
      this.value = loadMaps(this.root, this.logger);
      // A failed load must not be cached.
      this.value.catch(() => {
        this.signature = null;
        this.value = null;
      });
    }
    return this.value;
  }

  /**
   * What `get()` would answer for the map a concept id names (its first segment): that map's
   * descriptor alone, or none — enough for its placement and for telling a map's own folder
   * from a concept. The same folders count as for `get()`: `data/` and `data/<map>` real
   * directories (no symlink), the map's name not hidden, a readable descriptor.
   */
  async forId(id: string): Promise<MapDescriptor[]> {
    const name = id.split("/", 1)[0] as string;
    const signature = name.startsWith(".") ? null : this.mapSignature(name);
    if (signature === null) {
      this.single.delete(name);
      return [];
    }
    let cached = this.single.get(name);
    if (cached?.signature !== signature) {
      const value = loadMap(this.root, name, this.logger);
      cached = { signature, value };
      if (this.single.size >= MAX_SINGLE_MAPS) this.single.clear();
      this.single.set(name, cached);
      // A failed load must not be cached.
      value.catch(() => {
        if (this.single.get(name) === cached) this.single.delete(name);
      });
    }
    const desc = await cached.value;
    return desc ? [desc] : [];
  }

  /**
   * Identity and times of `data/`, `data/<name>` and the descriptor loadMap would read; null
   * when the folder is not one loadMaps lists. An inode in each part: a folder or descriptor
   * replaced by another (a rename, a checkout) differs even with the same size and times.
   */
  private mapSignature(name: string): string | null {
    const data = join(this.root, "data");
    const dir = join(data, name);
    let top: Stats | undefined;
    let folder: Stats | undefined;
    try {
      top = lstatSync(data, { throwIfNoEntry: false });
      folder = lstatSync(dir, { throwIfNoEntry: false });
    } catch {
      return null; // ENOTDIR (data/ is a file), EACCES: no map to place the concept in
    }
    if (!top?.isDirectory() || !folder?.isDirectory()) return null;
    const parts = [`${top.ino}`, `${folder.ino}`];
    for (const file of [MAP_FILE, LEGACY_MAP_FILE]) {
      let stat: Stats | undefined;
      try {
        stat = statSync(join(dir, file), { throwIfNoEntry: false });
      } catch {
        return `${parts.join("|")}|unreadable`; // ENOTDIR, EACCES…: loadMap decides
      }
      if (!stat) continue;
      parts.push(`${file}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`);
      if (stat.isFile()) break;
    }
    return parts.join("|");
  }

  private currentSignature(): string | null {
    try {
      const data = join(this.root, "data");
      const parts: string[] = [];
      for (const entry of readdirSync(data, { withFileTypes: true })) {
        if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
        parts.push(entry.name);
        // The first descriptor found is the one loadMaps reads: a legacy file beside `_map.md`
        // changes nothing, so it is not looked at (one stat per map folder on every read).
        for (const file of [MAP_FILE, LEGACY_MAP_FILE]) {
          const stat = statSync(join(data, entry.name, file), {
            bigint: true,
            throwIfNoEntry: false,
          });
          if (!stat) continue;
          parts.push(`${file}:${stat.size}:${stat.mtimeNs}`);
          if (stat.isFile()) break;
        }
      }
      return parts.join("|");
    } catch {
      return null;
    }
  }
}
