/**
 * The remote a KB syncs with: its `origin` URL (a token embedded in it moved out of git's argv
 * and config first, embedded-token.ts) and the RemoteContext git's network commands run with
 * (SSH command, credential helper, timeout; remote-access.ts). `origin` is re-read at each sync
 * when `.git/config` changed (origin-watch.ts), so a remote added, removed or re-pointed while
 * the server runs is used from the next sync on.
 */
import type { Logger } from "../../logger.js";
import type { SyncSettings } from "../core/types.js";
import { originWithoutToken, storedRemoteToken } from "./embedded-token.js";
import { OriginWatch } from "./origin-watch.js";
import { remoteAccess } from "./remote-access.js";
import { originUrl, type RemoteContext } from "./remote-git.js";

interface LinkDeps {
  kb: string;
  root: string;
  settings: SyncSettings;
  logger: Logger;
}

/** A token moved out of the origin URL, used when `git.token_dir` provides none. */
type StoredToken = { tokenFile: string; tokenUser: string } | null;

export class RemoteLink {
  private context: RemoteContext;

  private constructor(
    private readonly deps: LinkDeps,
    private current: string | null,
    private stored: StoredToken,
    private readonly origin: OriginWatch,
  ) {
    this.context = this.contextFor(current);
  }

  /** Reads `origin` (sync on) and remembers the state of `.git/config`. */
  static async open(deps: LinkDeps): Promise<RemoteLink> {
    const url = deps.settings.enabled
      ? await originWithoutToken(deps.root, await originUrl(deps.root), warnFor(deps))
      : null;
    const link = new RemoteLink(
      deps,
      url,
      await storedRemoteToken(deps.root),
      new OriginWatch(deps.root, url),
    );
    await link.origin.current();
    return link;
  }

  /** The origin URL (without a token), or null when the KB has none or sync is off. */
  get url(): string | null {
    return this.current;
  }

  get ctx(): RemoteContext {
    return this.context;
  }

  /**
   * Re-reads `origin` when `.git/config` changed. Returns the previous URL when the remote
   * changed (the caller forgets what it knew of the old one), else undefined.
   */
  async refresh(): Promise<{ was: string | null } | undefined> {
    if (!this.deps.settings.enabled) return undefined;
    const seen = await this.origin.current();
    if (!seen.changed) return undefined;
    const url = await originWithoutToken(this.deps.root, seen.url, warnFor(this.deps));
    const moved = url !== seen.url;
    if (moved) {
      await this.origin.current(); // absorbs the rewrite of .git/config
      this.stored = await storedRemoteToken(this.deps.root);
    }
    if (url === this.current && !moved) return undefined;
    const was = this.current;
    this.current = url;
    this.context = this.contextFor(url);
    return { was };
  }

  private contextFor(url: string | null): RemoteContext {
    const { settings } = this.deps;
    const token = settings.tokenFile ? {} : (this.stored ?? {});
    const access = remoteAccess(
      { ...settings, ...token, ...(url ? { remoteUrl: url } : {}) },
      settings.env,
    );
    return {
      root: this.deps.root,
      access,
      env: { ...settings.env, ...access.env },
      ...(url ? { url } : {}),
    };
  }
}

function warnFor(deps: LinkDeps): (message: string) => void {
  return (m) => deps.logger.warn(`KB '${deps.kb}': ${m}`);
}
