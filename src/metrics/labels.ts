/**
 * Label values of every metric come from bounded sets (docs/decisions.md "Metrics: labels are KB
 * and tool names only"): mounted KB names, registered tool names, the fixed outcomes, transports,
 * states and route templates below. Nothing a client typed (an unknown tool name, a raw path, a
 * concept id, a query, a token) ever becomes a label value.
 */
import { PROTECTED_RESOURCE_METADATA_PATH } from "../common/well-known.js";

/** The `tool` label of a call whose name no registered tool has. */
export const UNKNOWN_TOOL = "unknown";

/** The `route` label of a request that matched no route template. */
export const OTHER_ROUTE = "other";

/** Route templates of the HTTP server: `/mcp/<name>` is one template, whatever the KB. */
export function routeTemplate(pathname: string): string {
  const p = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
  if (p === "/mcp" || p === "/mcp/routed" || p === "/health" || p === "/ready" || p === "/metrics")
    return p;
  if (p.startsWith("/mcp/")) return "/mcp/{kb}";
  // The console's paths carry KB names and concept ids: one template for all of them.
  if (p === "/" || p === "/console" || p.startsWith("/console/")) return "/console";
  if (p.startsWith(PROTECTED_RESOURCE_METADATA_PATH)) return PROTECTED_RESOURCE_METADATA_PATH;
  return OTHER_ROUTE;
}

/** HTTP methods as labels; anything else is `other`. */
export function methodLabel(method: string): string {
  return KNOWN_METHODS.has(method) ? method : "other";
}

const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
