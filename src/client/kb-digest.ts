import type { ClientError } from "./errors.js";
import type { FetchFn } from "./health.js";
import type { KbDigest } from "./instructions.js";
import { openMcpSession } from "./mcp-session.js";

/** One KB to describe, reached through `url`, with the `kb` argument to pass (if any). */
export interface DigestTarget {
  kb: string;
  entry: string;
  url: string;
  kbArg?: string;
}

export interface DigestResult {
  tools?: string[];
  kbs: KbDigest[];
  /** Typed failures, already worded; the block is written without the missing parts. */
  warnings: string[];
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Top-level map names from a map_list answer; tolerant of the shapes a server may use. */
export function topLevelMaps(answer: unknown): string[] {
  const obj = answer as Record<string, unknown> | undefined;
  const list = Array.isArray(answer) ? answer : (obj?.maps ?? obj?.items ?? []);
  if (!Array.isArray(list)) return [];
  const names: string[] = [];
  for (const item of list) {
    const it = item as Record<string, unknown> | string;
    const name =
      typeof it === "string" ? it : [it?.name, it?.id, it?.path].find((v) => typeof v === "string");
    if (typeof name !== "string" || name.includes("/")) continue;
    if (typeof it === "object" && (it.parent ?? null) !== null) continue;
    names.push(name);
  }
  return names;
}

function instructionsOf(answer: unknown): string | undefined {
  const obj = answer as Record<string, unknown> | undefined;
  const v = obj?.instructions ?? obj?.instructions_md;
  return typeof v === "string" ? v : undefined;
}

/**
 * Asks the server, over MCP, what the instructions block should say: tool names, each KB's
 * top-level maps (map_list) and KB-root instructions (atlas_overview, when it carries them).
 * Never throws: each failure becomes a warning naming its kind (unreachable/protocol/tool).
 */
export async function describeKbs(
  targets: DigestTarget[],
  headers: Record<string, string>,
  fetchFn?: FetchFn,
): Promise<DigestResult> {
  const warnings: string[] = [];
  const kbs: KbDigest[] = targets.map((t) => ({
    name: t.kb,
    entry: t.entry,
    ...(t.kbArg !== undefined ? { kbArg: t.kbArg } : {}),
  }));
  let tools: string[] | undefined;
  const byUrl = new Map<string, number[]>();
  targets.forEach((t, i) => {
    byUrl.set(t.url, [...(byUrl.get(t.url) ?? []), i]);
  });
  for (const [url, indexes] of byUrl) {
    let session: Awaited<ReturnType<typeof openMcpSession>>;
    try {
      session = await openMcpSession(url, headers, fetchFn);
    } catch (err) {
      warnings.push(`instructions written without KB details: ${(err as ClientError).message}`);
      continue;
    }
    try {
      let listed: string[] | undefined;
      try {
        listed = await session.listTools();
        tools ??= listed;
      } catch (err) {
        warnings.push(`tools/list failed: ${(err as ClientError).message}`);
      }
      for (const i of indexes) {
        const target = targets[i] as DigestTarget;
        const digest = kbs[i] as KbDigest;
        const args = target.kbArg !== undefined ? { kb: target.kbArg } : {};
        try {
          digest.maps = topLevelMaps(parseJson(await session.callTool("map_list", args)));
        } catch (err) {
          warnings.push(`maps of KB ${target.kb} left out: ${(err as ClientError).message}`);
        }
        if (!listed || listed.includes("atlas_overview")) {
          try {
            const text = instructionsOf(parseJson(await session.callTool("atlas_overview", args)));
            if (text !== undefined) digest.instructions = text;
          } catch (err) {
            warnings.push(
              `instructions of KB ${target.kb} left out: ${(err as ClientError).message}`,
            );
          }
        }
      }
    } finally {
      await session.close();
    }
  }
  return { ...(tools ? { tools } : {}), kbs, warnings };
}
