/**
 * TEMPORARY (removed once every family uses defineTool): the untyped builders the families used
 * before schema.ts gave arguments a type. Tiny builders for the JSON-schema subset tool inputs use (validated by args.ts). They keep
 * each ToolSpec short and make the shape of tools/list predictable; descriptions are optional
 * because every byte of tools/list is paid by the agent on each round trip.
 */
import type { JsonSchema } from "./spec.js";

export type Schema = Record<string, unknown>;

function withDesc(schema: Schema, description?: string): Schema {
  return description ? { ...schema, description } : schema;
}

/** An object schema with `additionalProperties: false`. `required` lists mandatory keys. */
export function obj(properties: Record<string, Schema> = {}, required: string[] = []): JsonSchema {
  const schema: JsonSchema = { type: "object", properties };
  if (required.length > 0) schema.required = required;
  schema.additionalProperties = false;
  return schema;
}

/** A nested object property (not a tool's top-level input). */
export function nested(
  properties: Record<string, Schema>,
  required: string[] = [],
  description?: string,
): Schema {
  return withDesc(obj(properties, required), description);
}

/** A free-form object property (e.g. frontmatter): any keys, no further checks here. */
export function anyObj(description?: string): Schema {
  return withDesc({ type: "object" }, description);
}

export function str(description?: string): Schema {
  return withDesc({ type: "string" }, description);
}

export function int(opts: { min?: number; max?: number; description?: string } = {}): Schema {
  const schema: Schema = { type: "integer" };
  if (opts.min !== undefined) schema.minimum = opts.min;
  if (opts.max !== undefined) schema.maximum = opts.max;
  return withDesc(schema, opts.description);
}

export function num(opts: { min?: number; max?: number; description?: string } = {}): Schema {
  const schema: Schema = { type: "number" };
  if (opts.min !== undefined) schema.minimum = opts.min;
  if (opts.max !== undefined) schema.maximum = opts.max;
  return withDesc(schema, opts.description);
}

export function bool(description?: string): Schema {
  return withDesc({ type: "boolean" }, description);
}

export function arr(items: Schema, description?: string): Schema {
  return withDesc({ type: "array", items }, description);
}

export function enumOf(values: readonly string[], description?: string): Schema {
  return withDesc({ type: "string", enum: [...values] }, description);
}
