/**
 * Notices a remote added, removed or re-pointed while the server runs (docs/sync.md): `origin`
 * is re-read at each sync, but only when `.git/config` changed since the last read (a stat, no
 * git process), so the check costs nothing on the write path.
 */
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { originUrl } from "./remote-git.js";

export class OriginWatch {
  private seen: string | null = null;

  constructor(
    private readonly root: string,
    private url: string | null,
  ) {}

  /** The origin URL now, and whether it differs from the previous answer. */
  async current(): Promise<{ url: string | null; changed: boolean }> {
    const st = await stat(join(this.root, ".git", "config")).catch(() => null);
    const stamp = st ? `${st.mtimeMs}:${st.size}:${st.ino}` : "none";
    if (stamp === this.seen) return { url: this.url, changed: false };
    this.seen = stamp;
    const url = await originUrl(this.root);
    const changed = url !== this.url;
    this.url = url;
    return { url, changed };
  }
}
