/**
 * What `startHttpServer` takes. Resolved by cli/ from config (nothing here reads the env).
 */
import type { AuditSink } from "../audit/types.js";
import type { TokenStore } from "../auth/tokens.js";
import type { KbSettings } from "../kb/types.js";
import type { Logger } from "../logger.js";
import type { MountedKb } from "../mcp/mount.js";
import type { ToolsProfile } from "../mcp/surface.js";
import type { ToolSpec } from "../tools/spec.js";

export const DEFAULT_MAX_BODY_BYTES = 2 * 1024 * 1024;

export interface HttpAuthOptions {
  /** Bearer tokens; null = auth off (every request runs as LOCAL_ADMIN). */
  tokens: TokenStore | null;
  /** `authorization_servers` of the protected-resource metadata (omitted when empty). */
  authorizationServers?: string[];
}

export interface HttpServerOptions {
  /**
   * Mounted KBs (mountKb). A KB named `routed` is skipped with a warning (it would shadow
   * /mcp/routed); a repeated name is skipped with a warning, the first one wins. close()
   * closes every mount passed here, skipped ones included.
   */
  mounts: readonly MountedKb[];
  /** tools/list profile of every endpoint. Default `agent`. */
  toolsProfile?: ToolsProfile;
  /** Bind address. Default `127.0.0.1`. */
  host?: string;
  /** Port; 0 picks a free one (tests). Default 39273. */
  port?: number;
  /** Extra `Host` values accepted besides loopback names (`name` or `name:port`). */
  allowedHosts?: string[];
  /** Extra `Origin` values accepted besides loopback origins (exact, e.g. `https://app.example`). */
  allowedOrigins?: string[];
  /** Origins granted CORS (exact match; also accepted by the DNS-rebinding check). */
  corsOrigins?: string[];
  /** Request body cap. Default 2 MiB (over → 413). */
  maxBodyBytes?: number;
  /** Absent = auth off. */
  auth?: HttpAuthOptions;
  /** With auth off, listening on a non-loopback address is refused unless this is true. */
  allowInsecureNoAuth?: boolean;
  /** Absent = no audit. The caller owns it (close() does not close it). */
  audit?: AuditSink | null;
  logger: Logger;
  /** Server version (serverInfo, /health). */
  version: string;
  /** Public base URL (e.g. behind a proxy) for well-known metadata; default from the Host header. */
  publicUrl?: string;
  /** The tools a KB registers; default the registry's `toolsFor` (tests pass their own). */
  toolsFor?: (settings: KbSettings) => readonly ToolSpec[];
  /** Max routed surfaces cached (one per distinct KB binding). Default 64. */
  routedCacheSize?: number;
}

export interface HttpServerHandle {
  /** `http://<host>:<port>` as bound. */
  readonly url: string;
  readonly port: number;
  /** Stops accepting, cuts uploads still in progress, waits for in-flight calls, then closes the mounts' indexes. */
  close(): Promise<void>;
}
