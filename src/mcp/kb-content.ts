/**
 * One KB's resources, prompts and completions (docs/decisions.md "Resources, prompts and
 * completions read KB content through the tool call pipeline"). Every read of KB content goes
 * through the KB's call pipeline with an internal spec (protocol-specs.ts), so authorization,
 * hidden ≡ missing and the audit are exactly those of the tools. This module only turns pipeline
 * results into protocol results, and pipeline errors into JSON-RPC errors:
 *
 *   not_found (a missing or a hidden resource, same bytes) → -32002 `Resource not found`
 *   forbidden                                              → -32003 `forbidden`
 *   anything else                                          → -32603 with the tool error text
 */
import {
  type CallToolResult,
  ErrorCode,
  type GetPromptResult,
  McpError,
  type Prompt,
  type Resource,
} from "@modelcontextprotocol/sdk/types.js";
import type { IndexProgress } from "../search/build-status.js";
import { bundledSkills } from "../tools/families/skills.js";
import { FORBIDDEN_TEXT } from "../tools/result.js";
import type { ToolSpec } from "../tools/spec.js";
import type { CallContext } from "./context.js";
import { renderPrompt } from "./prompt-text.js";
import {
  completeValues,
  declaredArgs,
  getSkillPrompt,
  listResources,
  listSkillPrompts,
  type PromptArg,
  readConceptResource,
  readIndexResource,
  readInstructionsResource,
} from "./protocol-specs.js";
import { FORBIDDEN_CODE } from "./request-guard.js";
import {
  conceptUri,
  indexUri,
  instructionsUri,
  parseResourceUri,
  type ResourceRef,
} from "./resource-uri.js";

/** JSON-RPC code of a resource that does not exist, or that the caller may not see. */
export const RESOURCE_NOT_FOUND = -32002;
const MARKDOWN = "text/markdown";

/** Runs an internal spec through the KB's call pipeline (KbSurface.callSpec). */
export type SpecCaller = (
  spec: ToolSpec,
  args: Record<string, unknown>,
  ctx: CallContext,
) => Promise<CallToolResult>;

export interface ResourcePage {
  resources: Resource[];
  /** Id the next page of this KB starts at, or null. */
  next: string | null;
  /** The index build still under way after the bounded wait: the page is partial. */
  building: IndexProgress | null;
}

/** `_meta` key of a resources/list page read while an index was still building. */
export const INDEX_BUILDING_META = "cartographer/index_building";

/**
 * The `_meta` of a page some of whose KBs were still being indexed: per KB its build progress
 * (`state`, `done`, `total`). A client that needs every resource lists again later.
 */
export function buildingMeta(
  partial: ReadonlyMap<string, IndexProgress>,
): { _meta: Record<string, unknown> } | Record<string, never> {
  if (partial.size === 0) return {};
  return { _meta: { [INDEX_BUILDING_META]: Object.fromEntries(partial) } };
}

/** The answer of a call, parsed; a tool error becomes the McpError `onError` picks. */
async function run<T>(
  call: SpecCaller,
  spec: ToolSpec,
  args: Record<string, unknown>,
  ctx: CallContext,
  notFound: () => McpError,
): Promise<T> {
  const result = await call(spec, args, ctx);
  const text = result.content[0]?.type === "text" ? result.content[0].text : "";
  if (!result.isError) return JSON.parse(text) as T;
  if (text === FORBIDDEN_TEXT) throw new McpError(FORBIDDEN_CODE, "forbidden");
  if (text.startsWith("not found") || text.startsWith("not_found:")) throw notFound();
  if (text.startsWith("invalid_argument:") || text.startsWith("invalid_id:")) throw notFound();
  throw new McpError(ErrorCode.InternalError, text);
}

export function resourceNotFound(uri: string): McpError {
  return new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
}

/** One page of a KB's resources (concepts by id; the index and instructions on the first). */
export async function listKbResources(
  kb: string,
  call: SpecCaller,
  from: string | null,
  ctx: CallContext,
): Promise<ResourcePage> {
  const page = await run<{
    items: { id: string; title: string | null; type: string }[];
    next: string | null;
    building: IndexProgress | null;
    index: boolean;
    mapIndexes: string[];
    instructions: boolean;
  }>(call, listResources, from === null ? {} : { from }, ctx, () => denied());
  const resources: Resource[] = [];
  if (page.instructions)
    resources.push({
      uri: instructionsUri(kb),
      name: `${kb} instructions`,
      description: `How to work in KB '${kb}' (instructions.md)`,
      mimeType: MARKDOWN,
    });
  if (page.index)
    resources.push({
      uri: indexUri(kb),
      name: `${kb} index`,
      description: `The curated index of KB '${kb}' (data/index.md)`,
      mimeType: MARKDOWN,
    });
  for (const map of page.mapIndexes)
    resources.push({
      uri: indexUri(kb, map),
      name: `${kb} ${map} index`,
      description: `The curated index of map '${map}' in KB '${kb}' (data/${map}/index.md)`,
      mimeType: MARKDOWN,
    });
  for (const item of page.items) {
    const resource: Resource = { uri: conceptUri(kb, item.id), name: item.id, mimeType: MARKDOWN };
    if (item.title) resource.title = item.title;
    resource.description = `${item.type} in KB '${kb}'`;
    resources.push(resource);
  }
  return { resources, next: page.next, building: page.building };
}

/** The one content of a resource of this KB (`ref.kb` is this KB's name). */
export async function readKbResource(
  ref: ResourceRef,
  uri: string,
  call: SpecCaller,
  ctx: CallContext,
): Promise<{ contents: { uri: string; mimeType: string; text: string }[] }> {
  const spec =
    ref.kind === "concept"
      ? readConceptResource
      : ref.kind === "index"
        ? readIndexResource
        : readInstructionsResource;
  const args =
    ref.kind === "concept"
      ? { id: ref.id, uri }
      : ref.kind === "index" && ref.map !== undefined
        ? { uri, map: ref.map }
        : { uri };
  const { text } = await run<{ text: string }>(call, spec, args, ctx, () => resourceNotFound(uri));
  return { contents: [{ uri, mimeType: MARKDOWN, text }] };
}

export { parseResourceUri };

export interface PromptDef {
  name: string;
  description: string;
  args: PromptArg[];
  /** KB skill (read through the pipeline) or bundled with the package. */
  bundled: boolean;
}

/**
 * The KB's skills (when the caller may read the whole KB, as skill_list) and then each bundled
 * skill the KB has not installed under the same name.
 */
export async function kbPrompts(call: SpecCaller, ctx: CallContext): Promise<PromptDef[]> {
  let own: { name: string; description: string; arguments: PromptArg[] }[] = [];
  try {
    own = (await run<{ skills: typeof own }>(call, listSkillPrompts, {}, ctx, () => denied()))
      .skills;
  } catch (err) {
    // A narrow role cannot list the KB's skills: it still gets the bundled ones.
    if (!(err instanceof McpError && err.code === FORBIDDEN_CODE)) throw err;
  }
  const defs: PromptDef[] = own.map((s) => ({
    name: s.name,
    description: s.description || `Skill ${s.name}`,
    args: s.arguments,
    bundled: false,
  }));
  const names = new Set(defs.map((d) => d.name));
  for (const b of await bundledSkills()) {
    if (names.has(b.name)) continue;
    const text = await readBundled(b.dir);
    defs.push({
      name: b.name,
      description: b.description || `Skill ${b.name}`,
      args: text === null ? [] : declaredArgs(text),
      bundled: true,
    });
  }
  return defs;
}

function denied(): McpError {
  return new McpError(FORBIDDEN_CODE, "forbidden");
}

export function promptOf(def: PromptDef, extra: PromptArg[] = []): Prompt {
  const args = [...extra, ...def.args];
  const prompt: Prompt = { name: def.name, description: def.description };
  if (args.length > 0)
    prompt.arguments = args.map((a) => ({
      name: a.name,
      description: argDescription(a.name),
      required: a.required,
    }));
  return prompt;
}

function argDescription(name: string): string {
  if (name === "request") return "What you want done (added to the skill's instructions)";
  if (name === "kb") return "The KB to work in";
  if (name === "id" || name === "concept") return "A concept id";
  if (name === "map") return "A map or journal name";
  return name;
}

/** Unknown prompt: the SDK's own wording, the same for a hidden KB skill and a missing one. */
export function unknownPrompt(name: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Prompt ${name} not found`);
}

/** A prompt of this KB with its arguments filled in; `kb` set adds which KB to work in. */
export async function getKbPrompt(
  name: string,
  args: Record<string, string>,
  call: SpecCaller,
  ctx: CallContext,
  kb: string | null,
): Promise<GetPromptResult> {
  const defs = await kbPrompts(call, ctx);
  const def = defs.find((d) => d.name === name);
  if (!def) throw unknownPrompt(name);
  let text: string | null;
  if (def.bundled) {
    const b = (await bundledSkills()).find((s) => s.name === name);
    text = b ? await readBundled(b.dir) : null;
  } else {
    text = (
      await run<{ text: string }>(call, getSkillPrompt, { name }, ctx, () => unknownPrompt(name))
    ).text;
  }
  if (text === null) throw unknownPrompt(name);
  for (const a of def.args)
    if (a.required && (args[a.name] === undefined || args[a.name] === ""))
      throw new McpError(
        ErrorCode.InvalidParams,
        `Prompt ${name}: argument '${a.name}' is required`,
      );
  return {
    description: def.description,
    messages: [{ role: "user", content: { type: "text", text: renderPrompt(text, args, kb) } }],
  };
}

async function readBundled(dir: string): Promise<string | null> {
  const { readFile } = await import("node:fs/promises");
  return readFile(`${dir}/SKILL.md`, "utf8").catch(() => null);
}

/** Concept ids or map names of this KB starting with `value`, as the caller may see them. */
export async function completeKb(
  kind: "id" | "map",
  value: string,
  call: SpecCaller,
  ctx: CallContext,
): Promise<{ values: string[]; more: boolean }> {
  try {
    return await run(call, completeValues, { kind, value }, ctx, denied);
  } catch (err) {
    // Completion never errors on what the caller cannot see: it offers nothing.
    if (err instanceof McpError && err.code === FORBIDDEN_CODE) return { values: [], more: false };
    throw err;
  }
}
