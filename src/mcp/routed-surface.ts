/**
 * The routed surface (D187, D288): one tools/list for a set of KBs, the KB chosen per call by a
 * `kb` argument. It owns exactly two things — the union of the bound KBs' descriptors with `kb`
 * injected (injectKb, the ONE place), and choosing the target KB — and then calls the target's
 * KbSurface.callTool, the same path as a per-KB endpoint. No audit, no authorization here.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { CallContext } from "./context.js";
import type { KbSurface } from "./kb-surface.js";
import {
  type DescriptorList,
  freezeList,
  type ToolSurface,
  type ToolsProfile,
  textResult,
} from "./surface.js";

export class RoutedSurface implements ToolSurface {
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
      target = typeof named === "string" ? this.#surfaces.get(named) : undefined;
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
