/**
 * Resolves `repo:<ref>` and `path:<name>` to a local path, for `cartographer resolve` and for
 * the placeholders of the instructions block (placeholders.ts). `paths:` in the client yaml wins
 * for both kinds (a manual mapping also overrides a repository key, as in the Go client); a
 * repository is then looked up in the index (repo-index.ts). One resolver per command run:
 * answers are remembered, and the index is scanned at most once.
 */
import path from "node:path";
import type { ClientConfig } from "../config.js";
import type { CommandIo } from "../lib/io.js";
import { repoCachePath } from "./repo-cache.js";
import { expandHome, RepoIndex } from "./repo-index.js";
import { ResolveError } from "./resolve-error.js";
import type { ScanLimits } from "./scan.js";

export const PLACEHOLDER_KINDS = ["repo", "path"] as const;
export type PlaceholderKind = (typeof PLACEHOLDER_KINDS)[number];

/** search_roots when the yaml has none (the Go client's default). */
export const DEFAULT_SEARCH_ROOTS = ["~/Documents"];

export interface Resolved {
  path: string;
  /** For repo: the key it matched. */
  key?: string;
  /** Notes worth a line on stderr (several clones, a mapped path that does not exist). */
  warnings: string[];
}

export interface ResolverOptions {
  rescan?: boolean;
  /** A dry run: the index cache is not written. */
  keepCache?: boolean;
  limits?: ScanLimits;
  now?: () => number;
}

export class PathResolver {
  private readonly index: RepoIndex;
  private readonly memo = new Map<string, Promise<Resolved>>();
  private readonly paths: Readonly<Record<string, string>>;

  constructor(
    private readonly io: Pick<CommandIo, "home">,
    config: Pick<ClientConfig, "search_roots" | "paths">,
    /** The client yaml as messages show it (`~/.cartographer.yaml`). */
    private readonly configFile: string,
    opts: ResolverOptions = {},
  ) {
    this.paths = config.paths ?? {};
    this.index = new RepoIndex({
      home: io.home,
      roots: config.search_roots ?? DEFAULT_SEARCH_ROOTS,
      cacheFile: repoCachePath(io.home),
      configFile,
      ...opts,
    });
  }

  /** The path `kind:ref` names; throws ResolveError. Each reference is resolved once. */
  resolve(kind: PlaceholderKind, ref: string): Promise<Resolved> {
    const id = `${kind}:${ref}`;
    let hit = this.memo.get(id);
    if (!hit) {
      hit = this.lookUp(kind, ref);
      this.memo.set(id, hit);
    }
    return hit;
  }

  private async lookUp(kind: PlaceholderKind, ref: string): Promise<Resolved> {
    const mapped = Object.hasOwn(this.paths, ref) ? this.paths[ref] : undefined;
    if (mapped !== undefined) {
      const abs = path.normalize(expandHome(mapped, this.io.home));
      return { path: abs, warnings: [] };
    }
    if (kind === "path") {
      throw new ResolveError(
        "not_found",
        `path:${ref}: no entry "${ref}" under paths: in ${this.configFile}; add one, e.g. paths: { ${ref}: ~/path/to/folder }`,
      );
    }
    const hit = await this.index.find(ref);
    return { path: hit.path, key: hit.key, warnings: hit.warnings };
  }
}
