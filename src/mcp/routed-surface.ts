/**
 * The routed surface (D187, D288): one tools/list for a set of KBs, the KB chosen per call by a
 * `kb` argument. It owns exactly two things — the union of the bound KBs' descriptors with `kb`
 * injected (injectKb, the ONE place), and choosing the target KB — and then calls the target's
 * KbSurface.callTool, the same path as a per-KB endpoint. No audit, no authorization here.
 */
import {
  type CallToolResult,
  type CompleteResult,
  ErrorCode,
  type GetPromptResult,
  type ListResourcesResult,
  McpError,
  type Prompt,
  type ReadResourceResult,
  type ResourceTemplate,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { canReadAnyKb } from "../auth/decide.js";
import { resolveKbName } from "../kb/core/kb-name.js";
import type { IndexProgress } from "../search/build-status.js";
import {
  type CompletionRef,
  type ContentSurface,
  completion,
  decodeCursor,
  encodeCursor,
} from "./content-surface.js";
import type { CallContext } from "./context.js";
import {
  buildingMeta,
  INDEX_BUILDING_META,
  resourceNotFound,
  unknownPrompt,
} from "./kb-content.js";
import type { KbEvent } from "./kb-events.js";
import { completionKind, type KbSurface } from "./kb-surface.js";
import { FORBIDDEN_CODE } from "./request-guard.js";
import { conceptTemplate, parseResourceUri } from "./resource-uri.js";
import {
  type DescriptorList,
  freezeList,
  type ToolSurface,
  type ToolsProfile,
  textResult,
} from "./surface.js";

export class RoutedSurface implements ToolSurface, ContentSurface {
  readonly kbNames: readonly string[];
  readonly #surfaces: ReadonlyMap<string, KbSurface>;
  readonly #lists = new Map<ToolsProfile, DescriptorList>();

  readonly #unavailable: (name: string) => string | undefined;

  /**
   * `surfaces`: the bound KBs, in the order their descriptors take precedence. `unavailable`
   * gives the reason a configured KB could not be opened, so a call naming it says so.
   */
  constructor(
    surfaces: readonly KbSurface[],
    unavailable: (name: string) => string | undefined = () => undefined,
  ) {
    this.#unavailable = unavailable;
    if (surfaces.length === 0) throw new Error("a routed surface needs at least one KB");
    this.#surfaces = new Map(surfaces.map((s) => [s.name, s]));
    this.kbNames = Object.freeze(surfaces.map((s) => s.name));
  }

  descriptors(profile: ToolsProfile): DescriptorList {
    let list = this.#lists.get(profile);
    if (!list) {
      list = freezeList(
        unionOf([...this.#surfaces.values()], profile).map((t) => injectKb(t, this.kbNames)),
      );
      this.#lists.set(profile, list);
    }
    return list;
  }

  async callTool(name: string, args: unknown, ctx: CallContext): Promise<CallToolResult> {
    const record = isRecord(args) ? args : undefined;
    const named = record?.kb;
    let target: KbSurface | undefined;
    if (named === undefined || named === null) {
      if (this.kbNames.length > 1) {
        return textResult(
          `invalid_argument: 'kb' is required; one of ${this.kbNames.join(", ")}`,
          true,
        );
      }
      target = this.#surfaces.get(this.kbNames[0] as string);
    } else {
      // Another case of a bound name finds its KB when only one matches (kb/kb-name.ts).
      const resolved = typeof named === "string" ? resolveKbName(named, this.kbNames) : null;
      target = resolved === null ? undefined : this.#surfaces.get(resolved);
      const down = typeof named === "string" && !target ? this.#unavailable(named) : undefined;
      if (down !== undefined)
        return textResult(
          `unavailable: KB '${named}' could not be opened (${down}); the other KBs are served`,
          true,
        );
      if (!target) {
        return textResult(
          `invalid_argument: 'kb' must be one of the KBs this connection is bound to (${this.kbNames.join(", ")}), got ${JSON.stringify(named)}`,
          true,
        );
      }
    }
    const surface = target as KbSurface;
    const spec = this.#registrar(name);
    if (spec && !surface.spec(name)) {
      // In the union, but gated off on this KB (e.g. artifact_write without allow_artifact_write).
      const key = spec.enableKey ? `; set ${spec.enableKey}: true in its config to enable it` : "";
      return textResult(
        `not_configured: tool ${name} is not enabled on KB '${surface.name}'${key}`,
        true,
      );
    }
    let stripped: unknown = args;
    if (record && "kb" in record) {
      const { kb: _kb, ...rest } = record;
      stripped = rest;
    }
    return surface.callTool(name, stripped, ctx);
  }

  // ---- resources, prompts, completions: each KB's own, the KB named by the URI or `kb` -----

  async listResources(cursor: string | undefined, ctx: CallContext): Promise<ListResourcesResult> {
    const surfaces = [...this.#surfaces.values()];
    let { kb: i, from } = decodeCursor(cursor);
    // KBs whose index was still building, also those skipped for an empty page.
    const partial = new Map<string, IndexProgress>();
    for (; i < surfaces.length; i++, from = null) {
      const surface = surfaces[i] as KbSurface;
      let page: ListResourcesResult;
      try {
        page = await surface.listResources(
          from === null ? undefined : encodeCursor({ kb: 0, from }),
          ctx,
        );
      } catch (err) {
        // A bound KB this principal cannot read at all lists nothing (like a collection tool).
        if (err instanceof McpError && err.code === FORBIDDEN_CODE) continue;
        throw err;
      }
      const building = (page._meta?.[INDEX_BUILDING_META] ?? {}) as Record<string, IndexProgress>;
      for (const [kb, progress] of Object.entries(building)) partial.set(kb, progress);
      const next = page.nextCursor
        ? { kb: i, from: decodeCursor(page.nextCursor).from }
        : i + 1 < surfaces.length
          ? { kb: i + 1, from: null }
          : null;
      if (page.resources.length === 0 && next !== null && next.kb !== i) continue;
      return next === null
        ? { resources: page.resources, ...buildingMeta(partial) }
        : { resources: page.resources, nextCursor: encodeCursor(next), ...buildingMeta(partial) };
    }
    return { resources: [], ...buildingMeta(partial) };
  }

  readResource(uri: string, ctx: CallContext): Promise<ReadResourceResult> {
    const ref = parseResourceUri(uri);
    const surface = ref ? this.#surfaces.get(ref.kb) : undefined;
    if (!surface) return Promise.reject(resourceNotFound(uri));
    return surface.readResource(uri, ctx);
  }

  resourceTemplates(): ResourceTemplate[] {
    return [
      {
        uriTemplate: conceptTemplate(null),
        name: "concept",
        title: "Concept of a bound KB",
        description: `A concept's Markdown by KB (${this.kbNames.join(", ")}) and id (both complete)`,
        mimeType: "text/markdown",
      },
    ];
  }

  /** The union by name of the bound KBs' prompts, `kb` added (required with 2+ KBs). */
  async listPrompts(ctx: CallContext): Promise<Prompt[]> {
    const byName = new Map<string, Prompt>();
    for (const surface of this.#readable(ctx)) {
      for (const prompt of await surface.listPrompts(ctx)) {
        if (!byName.has(prompt.name)) byName.set(prompt.name, this.#withKb(prompt));
      }
    }
    return [...byName.values()];
  }

  getPrompt(
    name: string,
    args: Record<string, string>,
    ctx: CallContext,
  ): Promise<GetPromptResult> {
    const { kb, ...rest } = args;
    let surface: KbSurface | undefined;
    if (kb === undefined || kb === "") {
      if (this.kbNames.length > 1)
        return Promise.reject(
          new McpError(
            ErrorCode.InvalidParams,
            `Prompt ${name}: argument 'kb' is required; one of ${this.kbNames.join(", ")}`,
          ),
        );
      surface = this.#surfaces.get(this.kbNames[0] as string);
    } else surface = this.#surfaces.get(kb);
    if (!surface) return Promise.reject(unknownPrompt(name));
    // The text names the KB to pass as `kb` when the tools need it (2+ KBs).
    return surface.getPrompt(name, rest, ctx, this.kbNames.length > 1);
  }

  async complete(
    ref: CompletionRef,
    argument: { name: string; value: string },
    context: Record<string, string>,
    ctx: CallContext,
  ): Promise<CompleteResult["completion"]> {
    const kind = completionKind(ref, argument.name, null);
    if (kind === null) return completion([]);
    if (kind === "kb")
      return completion(
        this.#readable(ctx)
          .map((s) => s.name)
          .filter((n) => n.startsWith(argument.value)),
      );
    const named = context.kb ?? (this.kbNames.length === 1 ? this.kbNames[0] : undefined);
    const surface = named === undefined ? undefined : this.#surfaces.get(named);
    if (!surface) return completion([]);
    if (ref.type === "ref/resource")
      return surface.complete(
        { type: "ref/resource", uri: conceptTemplate(surface.name) },
        argument,
        {},
        ctx,
      );
    return surface.complete(ref, argument, {}, ctx);
  }

  onEvent(listener: (kb: string, event: KbEvent) => void): () => void {
    const stops = [...this.#surfaces.values()].map((s) => s.onEvent(listener));
    return () => {
      for (const stop of stops) stop();
    };
  }

  writes(tool: string): boolean {
    return [...this.#surfaces.values()].some((s) => s.writes(tool));
  }

  /** The bound KBs this principal can read something of (the rest offer no prompts). */
  #readable(ctx: CallContext): KbSurface[] {
    return [...this.#surfaces.values()].filter((s) => canReadAnyKb(ctx.principal.policy, [s.name]));
  }

  #withKb(prompt: Prompt): Prompt {
    const kbArg = {
      name: "kb",
      description: `The KB to work in: ${this.kbNames.join(", ")}`,
      required: this.kbNames.length > 1,
    };
    return { ...prompt, arguments: [kbArg, ...(prompt.arguments ?? [])] };
  }

  /** The spec of the first bound KB registering `name` (for its enable key). */
  #registrar(name: string) {
    for (const surface of this.#surfaces.values()) {
      const spec = surface.spec(name);
      if (spec) return spec;
    }
    return undefined;
  }
}

/** Union by name, in order; the first KB registering a tool gives its description and schema. */
function unionOf(surfaces: readonly KbSurface[], profile: ToolsProfile): Tool[] {
  const byName = new Map<string, Tool>();
  for (const surface of surfaces) {
    for (const tool of surface.descriptors(profile).tools) {
      if (!byName.has(tool.name)) byName.set(tool.name, tool);
    }
  }
  return [...byName.values()];
}

/**
 * THE one point where `kb` enters a schema (D187): an enum of the bound KBs, required with two
 * or more; with exactly one KB the URL already named it, so the schema is left as it is.
 * Builds new objects; the KB's frozen descriptor is never touched.
 */
export function injectKb(tool: Tool, kbNames: readonly string[]): Tool {
  if (kbNames.length < 2) return tool;
  const schema = tool.inputSchema;
  const required = (schema.required ?? []).filter((r) => r !== "kb");
  return {
    ...tool,
    inputSchema: {
      ...schema,
      properties: { kb: { type: "string", enum: [...kbNames] }, ...(schema.properties ?? {}) },
      required: ["kb", ...required],
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
