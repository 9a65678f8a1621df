/**
 * Map descriptors are read on every concept read (placement, validation). Parsing every
 * `_map.md` each time cost more than the read itself, so descriptors are cached behind a cheap
 * signature — the top-level folders and each descriptor file's size and mtime (ns) — which also
 * picks up edits made outside the server.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../../logger.js";
import { LEGACY_MAP_FILE, MAP_FILE } from "../core/maps.js";
import type { MapDescriptor } from "../core/types.js";
import { loadMaps } from "./store-read.js";

export class MapsCache {
  private signature: string | null = null;
  private value: Promise<MapDescriptor[]> | null = null;

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
