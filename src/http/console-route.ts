/**
 * The console route (docs/console.md): `/`, `/console` and `/console/…` handed to the console
 * (src/console/server.ts) as a request value. The rebinding guard (Host/Origin) already ran in
 * core.ts for this request as for /mcp; the console adds its own checks (session, CSRF, the
 * auth-off loopback rule) and security headers.
 */
import type { HttpReply } from "./exchange.js";
import { headerOf } from "./exchange.js";
import { requestAudiences } from "./oauth-challenge.js";
import { isLoopbackPeer } from "./origin-guard.js";
import type { RouteContext } from "./route-context.js";

export async function serveConsoleRoute(ctx: RouteContext): Promise<HttpReply | null> {
  const { req, url } = ctx;
  const origin = ctx.baseUrl();
  const out = await ctx.console.handle({
    method: req.method,
    pathname: url.pathname,
    query: url.searchParams,
    header: (name) => headerOf(req, name),
    readBody: (max) => req.readBody(max),
    origin,
    secure: origin.startsWith("https:"),
    // A console session carries an MCP token: it must be one for this server's MCP resource.
    audiences: requestAudiences({ ...ctx, url: new URL("/mcp", url) }),
    peerLoopback: isLoopbackPeer(req.remoteAddress),
  });
  if (out === null) return null;
  if (typeof out.body === "string")
    return { status: out.status, headers: out.headers, body: out.body };
  // Bytes (an image, a static file) go out as a one-chunk stream: reply bodies are text.
  const bytes = new Uint8Array(out.body);
  return {
    status: out.status,
    headers: out.headers,
    body: null,
    stream: new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes);
        controller.close();
      },
    }),
  };
}
