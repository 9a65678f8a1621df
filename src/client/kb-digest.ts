import { type ClientError, ToolError } from "./errors.js";
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

interface MapItem {
  name?: unknown;
  kind?: unknown;
}

/**
 * Top-level map and journal names from map_list's `{maps: [{name, kind, title, …}]}` (every
 * entry is a top-level folder with a `_map.md`); journals are told apart by `kind`.
 */
export function mapsOf(answer: unknown): { maps: string[]; journals: string[] } {
  const list = (answer as { maps?: unknown } | undefined)?.maps;
  const out = { maps: [] as string[], journals: [] as string[] };
  if (!Array.isArray(list)) return out;
  for (const item of list as MapItem[]) {
    if (typeof item?.name !== "string" || item.name.includes("/")) continue;
    (item.kind === "journal" ? out.journals : out.maps).push(item.name);
  }
  return out;
}

/**
 * atlas_overview's `{kb, concepts, maps, instructions}`: the count only. Its `instructions` are
 * not taken: the block carries a KB's instructions.md only as the manifest's `instructions`
 * artifact, through the trust gate (docs/decisions.md, Client).
 */
export function overviewOf(answer: unknown): { concepts?: number } {
  const obj = answer as { concepts?: unknown } | undefined;
  return typeof obj?.concepts === "number" ? { concepts: obj.concepts } : {};
}

/** The root index's title from index_get's `{content}`: frontmatter `title:`, else its `# ` heading. */
export function indexTitleOf(answer: unknown): string | undefined {
  const content = (answer as { content?: unknown } | undefined)?.content;
  if (typeof content !== "string") return undefined;
  const fm = /^---\r?\n([\s\S]*?)\r?\n---/.exec(content.replace(/^\uFEFF/, ""));
  const title = fm ? /^title:[ \t]*(.+?)[ \t]*$/m.exec(fm[1] as string)?.[1] : undefined;
  const heading = /^# +(.+?)\s*$/m.exec(fm ? content.slice(fm[0].length) : content)?.[1];
  const raw = title ?? heading;
  return raw?.replace(/^(["'])(.*)\1$/, "$2") || undefined;
}

/**
 * Asks the server, over MCP, what the instructions block should say: tool names, each KB's
 * top-level maps and journals (map_list), concept count (atlas_overview), and the root index's
 * title (index_get). The KB's instructions.md comes from the trust-gated manifest instead.
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
        const call = async (tool: string) => parseJson(await session.callTool(tool, args));
        const offers = (tool: string) => !listed || listed.includes(tool);
        try {
          const { maps, journals } = mapsOf(await call("map_list"));
          digest.maps = maps;
          digest.journals = journals;
        } catch (err) {
          warnings.push(`maps of KB ${target.kb} left out: ${(err as ClientError).message}`);
        }
        if (offers("atlas_overview")) {
          try {
            Object.assign(digest, overviewOf(await call("atlas_overview")));
          } catch (err) {
            warnings.push(
              `concept count of KB ${target.kb} left out: ${(err as ClientError).message}`,
            );
          }
        }
        if (offers("index_get")) {
          try {
            const title = indexTitleOf(await call("index_get"));
            if (title !== undefined) digest.indexTitle = title;
          } catch (err) {
            // The title is a nicety: a caller whose role may not read the root index
            // (a tool error) is not warned on every connect.
            if (!(err instanceof ToolError)) {
              warnings.push(
                `root index of KB ${target.kb} left out: ${(err as ClientError).message}`,
              );
            }
          }
        }
      }
    } finally {
      await session.close();
    }
  }
  return { ...(tools ? { tools } : {}), kbs, warnings };
}
