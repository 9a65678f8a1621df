/**
 * defineTool: a ToolSpec from an argument shape (schema.ts) and a handler typed by it. The
 * shape gives the `inputSchema` tools/list shows; the handler receives the arguments parsed by
 * args.ts, so it never re-reads or re-checks a raw record. The call pipeline validates and
 * parses them once (`checkArgs`) and calls `typed.run`; `handler` parses for direct callers.
 */
import { parseArgs, parseValidated } from "./args.js";
import { withContentHash } from "./result.js";
import { type ArgsOf, objectSchema, type Shape } from "./schema.js";
import type { ToolContext, ToolSpec } from "./spec.js";

/** A ToolSpec written with a typed argument shape instead of a hand-written input schema. */
export type ToolDefinition<S extends Shape> = Omit<
  ToolSpec,
  "inputSchema" | "handler" | "auditFields" | "aliases"
> & {
  /** The arguments, in the order tools/list shows them; omitted = no arguments. */
  args?: S;
  /** Argument fields the audit may record (checked by the registry: never content). */
  auditFields: Array<keyof S & string>;
  /** Go v0.5 argument names accepted for these arguments (see ToolSpec.aliases; the registry checks them). */
  aliases?: Readonly<Record<string, string | null>>;
  handler: (args: ArgsOf<S>, ctx: ToolContext) => Promise<unknown>;
  /**
   * The result also carries `content_hash` (= `hash`), the name Go v0.5 returns, for the tools
   * whose Go result has it (docs/decisions.md, Protocol).
   */
  contentHashAlias?: boolean;
};

export function defineTool<S extends Shape = Record<never, never>>(
  def: ToolDefinition<S>,
): ToolSpec {
  const { args, handler, contentHashAlias, ...rest } = def;
  const shape = (args ?? {}) as S;
  const inputSchema = objectSchema(shape);
  const run = (parsed: unknown, ctx: ToolContext) => handler(parsed as ArgsOf<S>, ctx);
  const typed = {
    parse: (valid: Record<string, unknown>) => parseValidated(shape, valid),
    run: contentHashAlias
      ? async (parsed: unknown, ctx: ToolContext) => withContentHash(await run(parsed, ctx))
      : run,
  };
  const spec: ToolSpec = {
    ...rest,
    inputSchema,
    handler: (raw, ctx) => typed.run(parseArgs(spec, shape, raw), ctx),
    typed,
  };
  return spec;
}
