/**
 * `cartographer serve` over stdio: one KB → its surface; several → a RoutedSurface over all
 * of them (design.md §6). The principal is LOCAL_ADMIN. Diagnostics go to the logger (stderr);
 * the output stream carries protocol messages only.
 */
import type { Readable, Writable } from "node:stream";
import type { Logger } from "../logger.js";
import type { Cartographer } from "./app.js";
import { LOCAL_ADMIN } from "./context.js";
import type { KbSurface } from "./kb-surface.js";
import { RoutedSurface } from "./routed-surface.js";
import { createMcpServer } from "./server.js";
import { LineTransport } from "./stdio-transport.js";
import type { ToolSurface, ToolsProfile } from "./surface.js";

export interface StdioOptions {
  stdin: Readable;
  stdout: Writable;
  logger: Logger;
  version: string;
  /** Default `agent`. */
  profile?: ToolsProfile;
}

export interface StdioSession {
  /** Resolves when the input ends or close() is called, once pending requests are answered. */
  readonly closed: Promise<void>;
  /** Stops reading, answers the requests already read, then closes. */
  close(): Promise<void>;
}

/**
 * The surface stdio serves for an app: its one served KB, or the routed surface over every
 * served KB in mount order (a call naming an unavailable KB is told why). Throws when no KB is
 * served, naming the unavailable ones.
 */
export function stdioSurfaceOf(app: Cartographer): ToolSurface {
  const surfaces = [...app.surfaces.values()];
  if (surfaces.length === 0) {
    const down = app.kbs.map((k) => `'${k.name}' (${k.reason ?? k.status})`).join(", ");
    throw new Error(
      down === ""
        ? "stdio needs at least one KB: pass --kb PATH"
        : `stdio needs at least one KB, and none could be opened: ${down}`,
    );
  }
  return surfaces.length === 1
    ? (surfaces[0] as KbSurface)
    : new RoutedSurface(surfaces, app.unavailable);
}

export async function serveStdio(surface: ToolSurface, opts: StdioOptions): Promise<StdioSession> {
  const server = createMcpServer(surface, {
    name: "cartographer",
    version: opts.version,
    profile: opts.profile ?? "agent",
    principal: LOCAL_ADMIN,
    transport: "stdio",
  });
  const transport = new LineTransport(opts.stdin, opts.stdout);
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  const previous = server.onclose;
  server.onclose = () => {
    previous?.();
    resolveClosed();
  };
  server.onerror = (error) => opts.logger.warn(`stdio: ${error.message}`);
  await server.connect(transport);
  // Graceful: requests already read are answered (and their writes committed) first.
  return { closed, close: () => transport.drain() };
}
