/**
 * What an HTTP route handler is given. Its own module so that the core's route table (core.ts)
 * and the handlers it lists (mcp-route.ts) both depend on it, not on each other.
 */
import type { ConsoleServer } from "../console/server.js";
import type { HttpRequest } from "./exchange.js";
import type { HttpServerOptions } from "./options.js";

/** What a route handler sees: the request, its parsed URL, CORS headers and the server facts. */
export interface RouteContext {
  readonly req: HttpRequest;
  readonly url: URL;
  readonly cors: Record<string, string>;
  readonly host: string | undefined;
  readonly opts: HttpServerOptions;
  /** `http://<Host>` or the configured public URL, without a trailing slash. */
  baseUrl(): string;
  /** The governance console of this server (console-route.ts). */
  readonly console: ConsoleServer;
}
