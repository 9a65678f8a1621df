/**
 * Matching a path against the page table's patterns. A pattern is literal segments, `:name` (one
 * segment) and at most one `*name` (one or more segments, joined by `/`: a concept id or an asset
 * path), which may be followed by literal segments (`/console/:kb/c/*id/history`). Segments are
 * percent-decoded one by one; a segment that does not decode, or decodes to something holding
 * `/` or a NUL, matches nothing (no smuggled separators).
 */

import type { ConsoleKbs } from "./kbs.js";
import type { ConsoleMethod, ConsoleReply, ConsoleRequest } from "./types.js";

export interface ConsolePage {
  /** e.g. `/console/:kb/browse`; see the header for the syntax. */
  readonly pattern: string;
  /** Methods served; GET also serves HEAD. A POST is CSRF- and Origin-checked before `handle`. */
  readonly methods: readonly ConsoleMethod[];
  handle(req: ConsoleRequest, kbs: ConsoleKbs): Promise<ConsoleReply> | ConsoleReply;
}

/** The decoded segments of `pathname` (no empty ones); null when one does not decode safely. */
export function segmentsOf(pathname: string): string[] | null {
  const out: string[] = [];
  for (const part of pathname.split("/")) {
    if (part === "") continue;
    let s: string;
    try {
      s = decodeURIComponent(part);
    } catch {
      return null;
    }
    if (s.includes("/") || s.includes("\u0000")) return null;
    out.push(s);
  }
  return out;
}

/** The parameters of `segments` under `pattern`, or null when it does not match. */
export function matchPattern(
  pattern: string,
  segments: readonly string[],
): Record<string, string> | null {
  const parts = pattern.split("/").filter((p) => p !== "");
  const star = parts.findIndex((p) => p.startsWith("*"));
  const params: Record<string, string> = {};
  const fixed = (pat: readonly string[], segs: readonly string[]): boolean => {
    if (pat.length !== segs.length) return false;
    return pat.every((p, i) => {
      const s = segs[i] as string;
      if (p.startsWith(":")) {
        params[p.slice(1)] = s;
        return true;
      }
      return p === s;
    });
  };
  if (star === -1) return fixed(parts, segments) ? params : null;
  const head = parts.slice(0, star);
  const tail = parts.slice(star + 1);
  const middle = segments.length - head.length - tail.length;
  if (middle < 1) return null;
  if (!fixed(head, segments.slice(0, head.length))) return null;
  if (!fixed(tail, segments.slice(segments.length - tail.length))) return null;
  params[(parts[star] as string).slice(1)] = segments
    .slice(head.length, head.length + middle)
    .join("/");
  return params;
}

/** The first page of `pages` whose pattern matches, with its parameters. */
export function findPage(
  pages: readonly ConsolePage[],
  segments: readonly string[],
): { page: ConsolePage; params: Record<string, string> } | null {
  for (const page of pages) {
    const params = matchPattern(page.pattern, segments);
    if (params !== null) return { page, params };
  }
  return null;
}
