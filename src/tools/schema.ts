/**
 * The argument builder of the tools: each descriptor carries the JSON-schema fragment tools/list
 * shows for it AND, as a type parameter, the TypeScript type its handler receives. A tool's
 * `args` record (a {@link Shape}) therefore gives both its `inputSchema` ({@link objectSchema})
 * and its handler's argument type ({@link ArgsOf}); args.ts parses raw arguments into that type.
 * Descriptions are optional because every byte of tools/list is paid by the agent on each round
 * trip.
 */
import type { JsonSchema } from "./spec.js";

export type Schema = Record<string, unknown>;

/**
 * Whether a key must be sent (`required`, listed in the schema's `required`), may be left out
 * (`optional`, absent from the parsed args), or may be left out and then gets a fallback value
 * (`defaulted`, always present in the parsed args).
 */
export type Presence = "required" | "optional" | "defaulted";

/** One argument: its JSON-schema fragment, how it is parsed, and (as `T`) its parsed type. */
export interface Arg<T, P extends Presence = "required"> {
  /** Exactly what tools/list shows for the argument. */
  readonly schema: Schema;
  readonly presence: P;
  /** Strings only: `""` counts as absent; a required one is then refused (docs/decisions.md). */
  readonly blankIsAbsent: boolean;
  /** The value of an absent `defaulted` argument. */
  readonly fallback?: T;
  /** Object arguments: their fields, parsed one by one. */
  readonly fields?: Shape;
  /** Object arguments: keys beyond `fields` are accepted and passed through unparsed. */
  readonly open?: boolean;
  /** Array arguments: the descriptor of each item. */
  readonly items?: AnyArg;
  /** Type-only: the parsed type (never set at runtime). */
  readonly __type?: T;
}

export type AnyArg = Arg<unknown, Presence>;
export type Shape = Readonly<Record<string, AnyArg>>;

type TypeOf<A> = A extends Arg<infer T, Presence> ? T : never;
type OptionalKeys<S extends Shape> = {
  [K in keyof S]: S[K] extends Arg<unknown, "optional"> ? K : never;
}[keyof S];
type PresentKeys<S extends Shape> = Exclude<keyof S, OptionalKeys<S>>;
type Flatten<T> = { [K in keyof T]: T[K] } & {};

/** The parsed arguments of a shape: required and defaulted keys present, optional ones `?`. */
export type ArgsOf<S extends Shape> = Flatten<
  { [K in PresentKeys<S>]: TypeOf<S[K]> } & { [K in OptionalKeys<S>]?: TypeOf<S[K]> }
>;

function arg<T>(schema: Schema, extra: Partial<Arg<T>> = {}): Arg<T> {
  return { schema, presence: "required", blankIsAbsent: false, ...extra };
}

function withDesc(schema: Schema, description?: string): Schema {
  return description ? { ...schema, description } : schema;
}

/** The `required` list and `properties` of a shape, in declaration order. */
function objectParts(shape: Shape): { properties: Record<string, Schema>; required: string[] } {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const [key, a] of Object.entries(shape)) {
    properties[key] = a.schema;
    if (a.presence === "required") required.push(key);
  }
  return { properties, required };
}

/** A tool's top-level input schema: the shape's properties, `additionalProperties: false`. */
export function objectSchema(shape: Shape = {}): JsonSchema {
  const { properties, required } = objectParts(shape);
  const schema: JsonSchema = { type: "object", properties };
  if (required.length > 0) schema.required = required;
  schema.additionalProperties = false;
  return schema;
}

/**
 * Makes an argument optional. Without `fallback` an absent (or null) value is left out of the
 * parsed args; with it, the parsed args hold `fallback` instead.
 */
export function opt<T>(a: Arg<T>): Arg<T, "optional">;
export function opt<T>(a: Arg<T>, fallback: T): Arg<T, "defaulted">;
export function opt<T>(a: Arg<T>, fallback?: T): Arg<T, "optional" | "defaulted"> {
  return fallback === undefined
    ? { ...a, presence: "optional" }
    : { ...a, presence: "defaulted", fallback };
}

/** Any string (`""` included). */
export function str(description?: string): Arg<string> {
  return arg(withDesc({ type: "string" }, description));
}

/**
 * A string where `""` means "not given": an id, a name, a scope. Required: `""` is refused with
 * `'<name>' is required: pass a non-empty string`; optional: `""` is left out like a missing key.
 * The check runs when the handler is called (after authorization), not in the schema.
 */
export function nonEmptyStr(description?: string): Arg<string> {
  return arg(withDesc({ type: "string" }, description), { blankIsAbsent: true });
}

export function int(opts: { min?: number; max?: number; description?: string } = {}): Arg<number> {
  return arg(bounded("integer", opts));
}

function bounded(type: string, opts: { min?: number; max?: number; description?: string }) {
  const schema: Schema = { type };
  if (opts.min !== undefined) schema.minimum = opts.min;
  if (opts.max !== undefined) schema.maximum = opts.max;
  return withDesc(schema, opts.description);
}

export function bool(description?: string): Arg<boolean> {
  return arg(withDesc({ type: "boolean" }, description));
}

export function arr<T>(items: Arg<T, Presence>, description?: string): Arg<T[]> {
  return arg(withDesc({ type: "array", items: items.schema }, description), {
    items: items as AnyArg,
  });
}

export function enumOf<const V extends readonly string[]>(
  values: V,
  description?: string,
): Arg<V[number]> {
  return arg(withDesc({ type: "string", enum: [...values] }, description));
}

/** A free-form object (e.g. frontmatter): any keys, passed through as sent (nulls included). */
export function anyObj<T extends Record<string, unknown> = Record<string, unknown>>(
  description?: string,
): Arg<T> {
  return arg(withDesc({ type: "object" }, description));
}

/** A nested object with exactly these fields (`additionalProperties: false`). */
export function object<S extends Shape>(fields: S, description?: string): Arg<ArgsOf<S>> {
  return arg(withDesc(objectSchema(fields), description), { fields });
}

/**
 * A nested object with at least these fields; other keys pass through unparsed (a batch
 * operation, whose remaining keys are another tool's arguments).
 */
export function openObject<S extends Shape>(
  fields: S,
  description?: string,
): Arg<ArgsOf<S> & Record<string, unknown>> {
  const { properties, required } = objectParts(fields);
  const schema: Schema = { type: "object", properties };
  if (required.length > 0) schema.required = required;
  return arg(withDesc(schema, description), { fields, open: true });
}
