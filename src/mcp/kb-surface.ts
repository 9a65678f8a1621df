/**
 * One mounted KB as MCP sees it: its registered ToolSpecs, the descriptor list of each profile
 * (built on first use and frozen, so tools/list is identical on every request and whatever else the
 * server has built), and `callTool`, the only path to a handler (see call-pipeline.ts).
 */
import type {
  CallToolResult,
  CompleteResult,
  GetPromptResult,
  ListResourcesResult,
  Prompt,
  ReadResourceResult,
  ResourceTemplate,
} from "@modelcontextprotocol/sdk/types.js";
import type { AuditSink } from "../audit/types.js";
import type { KbSettings } from "../kb/core/types.js";
import type { Logger } from "../logger.js";
import type { CallMetrics } from "../metrics/call-metrics.js";
import type { KbRuntime } from "../runtime/kb-runtime.js";
import type { ToolSpec } from "../tools/spec.js";
import { runToolCall } from "./call-pipeline.js";
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
  completeKb,
  getKbPrompt,
  kbPrompts,
  listKbResources,
  promptOf,
  readKbResource,
  resourceNotFound,
} from "./kb-content.js";
import { type KbEvent, kbChanged, kbLogger, onKbEvent } from "./kb-events.js";
import { withoutOwnKb } from "./own-kb-arg.js";
import { conceptTemplate, parseResourceUri } from "./resource-uri.js";
import {
  type DescriptorList,
  descriptorOf,
  freezeList,
  type ToolSurface,
  type ToolsProfile,
  textResult,
} from "./surface.js";

export interface KbSurfaceOptions {
  runtime: KbRuntime;
  /** The tools this KB registers (`toolsFor(settings)`; see surfaceForMount). */
  specs: readonly ToolSpec[];
  /** Absent or null: no audit. */
  audit?: AuditSink | null;
  logger: Logger;
  /** Clock for handlers (tests). */
  now?: () => Date;
  /** Counts and times every call (src/metrics); absent = not measured. */
  metrics?: CallMetrics;
}

export class KbSurface implements ToolSurface, ContentSurface {
  readonly name: string;
  readonly kbNames: readonly string[];
  readonly settings: KbSettings;
  readonly #specs: ReadonlyMap<string, ToolSpec>;
  /** Built on a profile's first tools/list, not at mount: 50 KBs' lists held initialize. */
  readonly #lists: Partial<Record<ToolsProfile, DescriptorList>> = {};
  readonly #options: KbSurfaceOptions;
  /** The options' logger, its warnings also sent to this KB's listening sessions. */
  readonly #logger: Logger;

  constructor(options: KbSurfaceOptions) {
    this.#options = options;
    this.#logger = kbLogger(options.logger, options.runtime.store.root);
    this.settings = options.runtime.settings;
    this.name = this.settings.name;
    this.kbNames = Object.freeze([this.name]);
    const specs = options.specs;
    this.#specs = new Map(specs.map((s) => [s.name, s]));
  }

  /** The registered spec of `name` (also the routed surface's "does this KB register it?"). */
  spec(name: string): ToolSpec | undefined {
    return this.#specs.get(name);
  }

  descriptors(profile: ToolsProfile): DescriptorList {
    this.#lists[profile] ??= freezeList(
      [...this.#specs.values()].filter((s) => profile === "full" || !s.advanced).map(descriptorOf),
    );
    return this.#lists[profile];
  }

  async callTool(name: string, args: unknown, ctx: CallContext): Promise<CallToolResult> {
    const own = withoutOwnKb(args, this.name);
    if (!own.ok) return textResult(own.message, true);
    const result = await this.#run((n) => this.#specs.get(n), name, own.args, ctx);
    // Sessions that can receive notifications learn that resources changed (kb-events.ts).
    if (!result.isError && this.writes(name)) kbChanged(this.#root, name);
    return result;
  }

  /** Warnings and successful writes of this KB, until the returned function is called. */
  onEvent(listener: (kb: string, event: KbEvent) => void): () => void {
    return onKbEvent(this.#root, (event) => listener(this.name, event));
  }

  /** The KB's runtime, for reads no tool gives (the console's git history, after its own check). */
  get runtime(): KbRuntime {
    return this.#options.runtime;
  }

  get #root(): string {
    return this.#options.runtime.store.root;
  }

  /**
   * Runs a spec that is not a registered tool (resources, prompts, completions:
   * protocol-specs.ts) through the same pipeline as callTool: authorized, audited.
   */
  callSpec(
    spec: ToolSpec,
    args: Record<string, unknown>,
    ctx: CallContext,
  ): Promise<CallToolResult> {
    return this.#run((n) => (n === spec.name ? spec : undefined), spec.name, args, ctx);
  }

  #run(
    resolve: (name: string) => ToolSpec | undefined,
    name: string,
    args: unknown,
    ctx: CallContext,
  ): Promise<CallToolResult> {
    const o = this.#options;
    return runToolCall(
      {
        kb: this.name,
        runtime: o.runtime,
        resolve,
        audit: o.audit ?? null,
        logger: this.#logger,
        now: o.now,
        metrics: o.metrics,
      },
      name,
      args,
      ctx,
    );
  }

  // ---- resources, prompts, completions (kb-content.ts) ----------------------------------

  readonly #call = (spec: ToolSpec, args: Record<string, unknown>, ctx: CallContext) =>
    this.callSpec(spec, args, ctx);

  async listResources(cursor: string | undefined, ctx: CallContext): Promise<ListResourcesResult> {
    const { from } = decodeCursor(cursor);
    const page = await listKbResources(this.name, this.#call, from, ctx);
    const meta = buildingMeta(new Map(page.building ? [[this.name, page.building]] : []));
    return page.next === null
      ? { resources: page.resources, ...meta }
      : {
          resources: page.resources,
          nextCursor: encodeCursor({ kb: 0, from: page.next }),
          ...meta,
        };
  }

  readResource(uri: string, ctx: CallContext): Promise<ReadResourceResult> {
    const ref = parseResourceUri(uri);
    if (!ref || ref.kb !== this.name) return Promise.reject(resourceNotFound(uri));
    return readKbResource(ref, uri, this.#call, ctx);
  }

  resourceTemplates(): ResourceTemplate[] {
    return [
      {
        uriTemplate: conceptTemplate(this.name),
        name: "concept",
        title: `Concept of KB '${this.name}'`,
        description: "A concept's Markdown by id (the id completes)",
        mimeType: "text/markdown",
      },
    ];
  }

  async listPrompts(ctx: CallContext): Promise<Prompt[]> {
    return (await kbPrompts(this.#call, ctx)).map((d) => promptOf(d));
  }

  /** `routed`: the text tells which KB to pass as `kb` (a routed endpoint with 2+ KBs). */
  getPrompt(
    name: string,
    args: Record<string, string>,
    ctx: CallContext,
    routed = false,
  ): Promise<GetPromptResult> {
    return getKbPrompt(name, args, this.#call, ctx, routed ? this.name : null);
  }

  async complete(
    ref: CompletionRef,
    argument: { name: string; value: string },
    _context: Record<string, string>,
    ctx: CallContext,
  ): Promise<CompleteResult["completion"]> {
    const kind = completionKind(ref, argument.name, this.name);
    if (kind === "kb") return completion([this.name].filter((n) => n.startsWith(argument.value)));
    if (kind === null) return completion([]);
    if (ref.type === "ref/prompt") {
      const defs = await kbPrompts(this.#call, ctx);
      if (!defs.some((d) => d.name === ref.name)) return completion([]);
    }
    const r = await completeKb(kind, argument.value, this.#call, ctx);
    return completion(r.values, r.more);
  }

  writes(tool: string): boolean {
    const spec = this.#specs.get(tool);
    return spec !== undefined && !spec.readOnly;
  }
}

/**
 * What an argument completes to: the concept template's `id` → ids (its `kb` → KB names); a
 * prompt argument by its name (`id`/`concept` → ids, `map` → maps, `kb` → KB names).
 */
export function completionKind(
  ref: CompletionRef,
  argument: string,
  kb: string | null,
): "id" | "map" | "kb" | null {
  if (ref.type === "ref/resource") {
    if (ref.uri !== conceptTemplate(kb)) return null;
    return argument === "id" ? "id" : argument === "kb" && kb === null ? "kb" : null;
  }
  if (argument === "id" || argument === "concept") return "id";
  if (argument === "map") return "map";
  if (argument === "kb") return "kb";
  return null;
}
