/**
 * The managed instructions block (pure): what the agent reads about the KBs it can reach. It
 * names the tools exactly as the agent sees them, per provider (tool-names.ts): one entry on a
 * routed server (D187), with the `kb` value to pass when the binding has 2+ KBs; per-KB entries
 * on an older server.
 */
import type { ProviderId } from "./config.js";
import { PROVIDERS } from "./provision/targets/index.js";
import { localPathsTable } from "./repos/placeholders.js";
import type { EntrySpec } from "./topology.js";

export interface KbDigest {
  name: string;
  /** The `kb` argument value to pass; undefined when the connection needs none. */
  kbArg?: string;
  /** The MCP entry that reaches this KB. */
  entry: string;
  /** Top-level maps and journals, when map_list answered. */
  maps?: string[];
  journals?: string[];
  /** Visible concept count, from atlas_overview. */
  concepts?: number;
  /** The root index's title, from index_get. */
  indexTitle?: string;
  /** The KB-root instructions.md: the manifest's `instructions` artifact the trust gate accepted. */
  instructions?: string;
  /** Placeholders expanded in `instructions` (id → local path): the block's "Local paths". */
  localPaths?: ReadonlyMap<string, string>;
}

export interface BlockInput {
  serverName: string;
  provider: ProviderId;
  routed: boolean;
  entries: EntrySpec[];
  /** Tool names as listed by the server; undefined when tools/list failed. */
  tools?: string[];
  kbs: KbDigest[];
}

function beginPrefix(serverName: string, provider: ProviderId): string {
  return `<!-- BEGIN cartographer:${serverName} (${provider})`;
}

function endMarker(serverName: string, provider: ProviderId): string {
  return `<!-- END cartographer:${serverName} (${provider}) -->`;
}

/**
 * Text from the server goes inside the block verbatim, except a marker of ours: an END marker
 * in a KB's instructions.md would cut the block short and strand its tail on the next run.
 */
function defuseMarkers(text: string): string {
  return text.replace(/<!--(\s*)(BEGIN|END) cartographer:/g, "&lt;!--$1$2 cartographer:");
}

export function renderBlock(input: BlockInput): string {
  const { serverName, provider } = input;
  const out: string[] = [
    `${beginPrefix(serverName, provider)}: managed by cartographer connect; edits inside are replaced -->`,
    `## Cartographer knowledge bases`,
    "",
  ];
  // The example names a tool the server really lists (search, when it has one).
  const example =
    input.tools && input.tools.length > 0 && !input.tools.includes("search")
      ? (input.tools[0] as string)
      : "search";
  if (input.routed) {
    out.push(
      `MCP server \`${serverName}\` reaches ${input.kbs.length === 1 ? "one knowledge base" : `${input.kbs.length} knowledge bases`}. ${PROVIDERS[provider].namingSentence(serverName, example)}`,
    );
    if (input.kbs.length > 1) {
      out.push(
        `Every call takes a required \`kb\` argument: one of ${input.kbs.map((k) => `\`${k.name}\``).join(", ")}. Never guess it; a write to the wrong KB lands in the wrong archive.`,
      );
    } else {
      out.push("Calls take no `kb` argument: the connection is bound to this one KB.");
    }
  } else {
    out.push(
      `Each knowledge base is its own MCP server entry: ${input.entries.map((e) => `\`${e.name}\``).join(", ")}. The same tools exist on each entry; call the tool of the entry whose KB you mean.`,
    );
  }
  if (input.tools && input.tools.length > 0) {
    out.push(
      "",
      input.routed
        ? `Tools: ${input.tools.map((t) => `\`${PROVIDERS[provider].toolName(serverName, t)}\``).join(", ")}.`
        : `Tools on each entry (bare MCP names): ${input.tools.map((t) => `\`${t}\``).join(", ")}.`,
    );
  }
  for (const kb of input.kbs) {
    out.push("", `### KB \`${kb.name}\``);
    if (kb.kbArg !== undefined) out.push(`Pass \`kb: "${kb.kbArg}"\`.`);
    else if (!input.routed) {
      out.push(
        `Use the tools of MCP server \`${kb.entry}\`. ${PROVIDERS[provider].namingSentence(kb.entry, example)}`,
      );
    }
    const about: string[] = [];
    if (kb.indexTitle !== undefined) about.push(`root index “${kb.indexTitle}” (\`index_get\`)`);
    if (kb.concepts !== undefined) about.push(`${kb.concepts} concepts`);
    if (about.length > 0) out.push(`${about.join("; ")}.`.replace(/^./, (c) => c.toUpperCase()));
    if (kb.maps && kb.maps.length > 0) {
      out.push(`Top-level maps: ${kb.maps.map((m) => `\`${m}\``).join(", ")}.`);
    }
    if (kb.journals && kb.journals.length > 0) {
      out.push(`Journals: ${kb.journals.map((m) => `\`${m}\``).join(", ")}.`);
    }
    if (kb.instructions && kb.instructions.trim() !== "") {
      out.push(
        "",
        "Instructions from the KB's instructions.md:",
        "",
        defuseMarkers(kb.instructions.trim()),
      );
    }
  }
  const localPaths = new Map(input.kbs.flatMap((kb) => [...(kb.localPaths ?? [])]));
  if (localPaths.size > 0) out.push("", defuseMarkers(localPathsTable(localPaths)));
  out.push(endMarker(serverName, provider));
  return out.join("\n");
}

function findBlock(text: string, serverName: string, provider: ProviderId) {
  const start = text.indexOf(beginPrefix(serverName, provider));
  if (start < 0) return undefined;
  const end = text.indexOf(endMarker(serverName, provider), start);
  if (end < 0) return undefined;
  return { start, end: end + endMarker(serverName, provider).length };
}

export function hasBlock(text: string | null, serverName: string, provider: ProviderId): boolean {
  return text !== null && findBlock(text, serverName, provider) !== undefined;
}

/** The block's current text, or undefined. */
export function currentBlock(
  text: string | null,
  serverName: string,
  provider: ProviderId,
): string | undefined {
  if (text === null) return undefined;
  const at = findBlock(text, serverName, provider);
  return at ? text.slice(at.start, at.end) : undefined;
}

/** Replaces the block in place, or appends it after a blank line; other text is untouched. */
export function applyBlock(
  text: string | null,
  block: string,
  serverName: string,
  provider: ProviderId,
): string {
  const source = text ?? "";
  const at = findBlock(source, serverName, provider);
  if (at) return source.slice(0, at.start) + block + source.slice(at.end);
  if (source === "") return `${block}\n`;
  const base = source.endsWith("\n") ? source : `${source}\n`;
  return `${base}\n${block}\n`;
}

/** Removes the block and the separator applyBlock added; null when nothing else remains. */
export function removeBlock(
  text: string | null,
  serverName: string,
  provider: ProviderId,
): string | null {
  if (text === null) return null;
  const at = findBlock(text, serverName, provider);
  if (!at) return text;
  let before = text.slice(0, at.start);
  let after = text.slice(at.end);
  if (after.startsWith("\n")) after = after.slice(1);
  if (before.endsWith("\n\n")) before = before.slice(0, -1);
  const out = before + after;
  return out.trim() === "" ? null : out;
}
