/**
 * What `startHttpServer` takes. Resolved by cli/ from config (nothing here reads the env).
 */
import type { OAuthVerifier } from "../auth/oauth/verifier.js";
import type { TokenStore } from "../auth/tokens.js";
import type { Cartographer } from "../mcp/app.js";
import type { ToolsProfile } from "../mcp/surface.js";
import type { ServerMetrics } from "../metrics/server-metrics.js";

export const DEFAULT_MAX_BODY_BYTES = 2 * 1024 * 1024;
/** Open connections served in full; see HttpServerOptions.maxConnections. */
export const DEFAULT_MAX_CONNECTIONS = 256;
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5_000;

export interface HttpAuthOptions {
  /** Static bearer tokens; null with no `oauth` = auth off (every request runs as LOCAL_ADMIN). */
  tokens: TokenStore | null;
  /** `authorization_servers` of the protected-resource metadata (omitted when empty). */
  authorizationServers?: string[];
  /** Access tokens of an identity provider (`auth.oauth`); its issuer is advertised too. */
  oauth?: OAuthVerifier;
}

/** Whether a request needs a bearer: static tokens or an identity provider is configured. */
export function authRequired(auth: HttpAuthOptions | undefined): auth is HttpAuthOptions {
  return auth != null && (auth.tokens != null || auth.oauth != null);
}

export interface HttpServerOptions {
  /**
   * What is served (createCartographer): surfaces, routed cache, KB statuses, audit, logger.
   * The caller owns it: close() stops HTTP only; close the app after it.
   */
  app: Cartographer;
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
  /** Most JSON-RPC messages in one batch POST. Default 32 (over → 400). */
  maxBatchMessages?: number;
  /**
   * Connections served in full. Default 256. Beyond it, up to max(8, cap/8) more are accepted
   * only for /health and /ready (everything else 503, then the connection closes); past that
   * headroom new connections are closed at once.
   */
  maxConnections?: number;
  /** Time to receive a request's headers. Default 10 s (over → 408, connection closed). */
  headersTimeoutMs?: number;
  /** Time to receive a whole request, body included. Default 30 s (over → 408). */
  requestTimeoutMs?: number;
  /** Idle time before a kept-alive connection is closed. Default 5 s. */
  keepAliveTimeoutMs?: number;
  /** Absent = auth off. */
  auth?: HttpAuthOptions;
  /** With auth off, listening on a non-loopback address is refused unless this is true. */
  allowInsecureNoAuth?: boolean;
  /** Server version (serverInfo, /health). */
  version: string;
  /** Public base URL (e.g. behind a proxy) for well-known metadata; default from the Host header. */
  publicUrl?: string;
  /** Serves GET /metrics and counts requests and connections (metrics-route.ts); absent = 404. */
  metrics?: MetricsEndpoint;
  /** Console session expiry and cap (src/console/session.ts); defaults 8 h idle, 24 h, 1000. */
  consoleSessions?: { idleMs?: number; absoluteMs?: number; maxSessions?: number };
}

/** What serves GET /metrics (metrics-route.ts). */
export interface MetricsEndpoint {
  readonly metrics: ServerMetrics;
  /** The scrape bearer; null = loopback peers only. Never logged or echoed. */
  readonly token: string | null;
}

export interface HttpServerHandle {
  /** `http://<host>:<port>` as bound. */
  readonly url: string;
  readonly port: number;
  /**
   * Stops accepting, cuts uploads still in progress, waits for in-flight requests, then closes
   * every connection. The app (mounts, audit) stays open: close it afterwards.
   */
  close(): Promise<void>;
}
