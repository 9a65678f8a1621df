/**
 * One mounted KB as MCP sees it: its registered ToolSpecs, the descriptor list of each profile
 * (built and frozen once, so tools/list is identical on every request and whatever else the
 * server has built), and `callTool`, the only path to a handler (see call-pipeline.ts).
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { AuditSink } from "../audit/types.js";
import type { KbSettings } from "../kb/types.js";
import type { Logger } from "../logger.js";
import type { KbRuntime } from "../tools/runtime.js";
import type { ToolSpec } from "../tools/spec.js";
import { runToolCall } from "./call-pipeline.js";
import type { CallContext } from "./context.js";
import {
  type DescriptorList,
  descriptorOf,
  freezeList,
  type ToolSurface,
  type ToolsProfile,
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
}

export class KbSurface implements ToolSurface {
  readonly name: string;
  readonly kbNames: readonly string[];
  readonly settings: KbSettings;
  readonly #specs: ReadonlyMap<string, ToolSpec>;
  readonly #lists: Readonly<Record<ToolsProfile, DescriptorList>>;
  readonly #options: KbSurfaceOptions;

  constructor(options: KbSurfaceOptions) {
    this.#options = options;
    this.settings = options.runtime.settings;
    this.name = this.settings.name;
    this.kbNames = Object.freeze([this.name]);
    const specs = options.specs;
    this.#specs = new Map(specs.map((s) => [s.name, s]));
    this.#lists = Object.freeze({
      agent: freezeList(specs.filter((s) => !s.advanced).map(descriptorOf)),
      full: freezeList(specs.map(descriptorOf)),
    });
  }

  /** The registered spec of `name` (also the routed surface's "does this KB register it?"). */
  spec(name: string): ToolSpec | undefined {
    return this.#specs.get(name);
  }

  descriptors(profile: ToolsProfile): DescriptorList {
    return this.#lists[profile];
  }

  callTool(name: string, args: unknown, ctx: CallContext): Promise<CallToolResult> {
    const o = this.#options;
    return runToolCall(
      {
        kb: this.name,
        runtime: o.runtime,
        resolve: (n) => this.#specs.get(n),
        audit: o.audit ?? null,
        logger: o.logger,
        now: o.now,
      },
      name,
      args,
      ctx,
    );
  }
}
