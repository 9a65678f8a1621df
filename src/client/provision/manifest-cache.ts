/**
 * The last full `artifact_manifest` answer of each KB, kept as the server sent it so the next
 * run can ask with `known_revision` and, on `unchanged`, rebuild the manifest without the
 * transfer (docs/client.md "Manifest cache", docs/decisions.md "known_revision").
 *
 * It is a cache, never a source of trust: a cached answer is used only when the server has just
 * confirmed its revision, and it then goes through the same checks as a fresh answer
 * (manifest-shape.ts recomputes every content hash from the bytes and the revision from those),
 * followed by the trust gate. A file edited on disk cannot match the confirmed revision (a
 * sha256 over the content hashes), so a bad cache costs one full fetch and is then replaced.
 *
 * Where: `$XDG_CACHE_HOME/cartographer/manifests/` (else `~/.cache/…`), one file per server URL
 * and KB, named by a hash of both.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { readTextOrNull, writeFileAtomic } from "../atomic-file.js";

export interface ManifestCache {
  /** The cached answer text of `kb` reached at `url`, or null (absent, unreadable). */
  read(url: string, kb: string): Promise<string | null>;
  /** Keeps `text` as the answer of `kb` at `url`; a failure to write is not an error of the run. */
  write(url: string, kb: string, text: string): Promise<void>;
}

/** The cache folder for a home and environment (XDG base directory rule). */
export function manifestCacheDir(home: string, env: Record<string, string | undefined>): string {
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(home, ".cache");
  return path.join(base, "cartographer", "manifests");
}

export function fileManifestCache(dir: string): ManifestCache {
  const fileOf = (url: string, kb: string) =>
    path.join(
      dir,
      `${createHash("sha256").update(`${url}\0${kb}`).digest("hex").slice(0, 32)}.json`,
    );
  return {
    async read(url, kb) {
      try {
        return await readTextOrNull(fileOf(url, kb));
      } catch {
        return null;
      }
    },
    async write(url, kb, text) {
      try {
        await writeFileAtomic(fileOf(url, kb), text, { mode: 0o600 });
      } catch {
        // A read-only or full cache folder only costs the next run a full fetch.
      }
    },
  };
}
