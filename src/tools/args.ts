/**
 * The one owner of tool-argument checking, in two steps:
 * - {@link validateArgs}: the JSON-schema subset built by schema.ts (object, required,
 *   properties typed string/integer/number/boolean/array/object, items, enum, minimum/maximum,
 *   additionalProperties:false). The call pipeline runs it before authorization.
 * - {@link parseArgs}: validates the same way, then turns the record into the handler's typed
 *   arguments (null = absent, blank non-empty strings, fallbacks). defineTool runs it right
 *   before the handler, where the hand-written argument readers used to run.
 * Failures are `invalid_argument` naming the argument (with its path for nested values) and what
 * it expected, so an agent can fix the call in one step.
 * Both steps first rename the tool's Go v0.5 argument names to ours ({@link canonicalArgs}).
 */
import { KbError } from "../common/errors.js";
import type { AnyArg, ArgsOf, Shape } from "./schema.js";
import type { ToolContext, ToolSpec } from "./spec.js";

type Schema = Record<string, unknown>;

type ArgSpec = Pick<ToolSpec, "name" | "inputSchema" | "aliases">;

/**
 * Returns the arguments as a record with our names, or throws `invalid_argument` naming the
 * first bad one.
 */
export function validateArgs(spec: ArgSpec, args: unknown): Record<string, unknown> {
  const value = args === undefined || args === null ? {} : args;
  if (!isRecord(value)) {
    throw new KbError(
      "invalid_argument",
      `arguments of ${spec.name} must be an object, got ${describe(value)}`,
    );
  }
  const named = canonicalArgs(spec, value);
  checkObject(spec.inputSchema as Schema, named, "");
  return named;
}

/**
 * The one place Go v0.5 argument names become ours (`spec.aliases`, e.g. concept_move's
 * `source_id` → `from`; `moves[].source_id` → `from` renames inside each object item of the
 * array `moves`). An alias sent with the same value as our name is dropped; with a different
 * value the call is refused (`invalid_argument`), since neither can be preferred safely. With
 * `lenient`, a conflict keeps our name's value instead of throwing (the audit record of a call
 * that will be refused anyway). `args` is not changed.
 */
export function canonicalArgs(
  spec: Pick<ToolSpec, "aliases">,
  args: Record<string, unknown>,
  lenient = false,
): Record<string, unknown> {
  if (!spec.aliases) return args;
  const top: Record<string, string | null> = {};
  const nested = new Map<string, Record<string, string | null>>();
  for (const [alias, ours] of Object.entries(spec.aliases)) {
    const [array, key] = alias.split("[].");
    if (key === undefined) top[alias] = ours;
    else nested.set(array as string, { ...nested.get(array as string), [key]: ours });
  }
  let out = rename(args, top, lenient, "");
  for (const [array, table] of nested) {
    const list = out[array];
    if (!Array.isArray(list)) continue;
    const items = list.map((item, i) =>
      isRecord(item) ? rename(item, table, lenient, `${array}[${i}].`) : item,
    );
    if (items.some((item, i) => item !== list[i])) out = { ...out, [array]: items };
  }
  return out;
}

/** `record` with the keys of `table` renamed (the same record when none is present). */
function rename(
  record: Record<string, unknown>,
  table: Record<string, string | null>,
  lenient: boolean,
  path: string,
): Record<string, unknown> {
  if (!Object.keys(record).some((key) => Object.hasOwn(table, key))) return record;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record))
    if (!Object.hasOwn(table, key)) out[key] = value;
  for (const [key, value] of Object.entries(record)) {
    if (!Object.hasOwn(table, key)) continue;
    const ours = table[key];
    if (ours === null || ours === undefined) continue; // accepted and dropped
    const given = record[ours];
    if (given !== undefined && given !== null && !sameValue(given, value)) {
      if (lenient) continue;
      throw new KbError(
        "invalid_argument",
        `'${path}${key}' (the Go name of '${path}${ours}') and '${path}${ours}' are both given with different values: pass only '${path}${ours}'`,
        { argument: `${path}${key}` },
      );
    }
    if (given === undefined || given === null) out[ours] = value;
  }
  return out;
}

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Validates `args` against `spec.inputSchema` (built from `shape`) and returns them typed: null
 * and absent optional keys are left out, `defaulted` ones get their fallback, a blank
 * non-empty string counts as absent (required: {@link blankRequired}), nested objects and array
 * items are parsed field by field. Free-form objects pass through as sent.
 */
export function parseArgs<S extends Shape>(spec: ArgSpec, shape: S, args: unknown): ArgsOf<S> {
  return parseValidated(shape, validateArgs(spec, args));
}

/** {@link parseArgs} of arguments {@link validateArgs} has already returned. */
export function parseValidated<S extends Shape>(
  shape: S,
  valid: Record<string, unknown>,
): ArgsOf<S> {
  return parseObject(shape, valid, "", false) as ArgsOf<S>;
}

/** A call's arguments, checked once (see {@link checkArgs}). */
export interface CheckedArgs {
  /** Validated, with our names: what targets, audit and sync judge. */
  record: Record<string, unknown>;
  /** What the handler runs on: `spec.typed.parse(record)`, or `record` for a hand-written spec. */
  parsed: unknown;
  /** A blank required string: thrown when the handler would run, after authorization. */
  refusal?: KbError;
}

/**
 * Validates (throwing `invalid_argument`) and parses the raw arguments of a call, once. A
 * refusal of the parse (a blank required string) is kept for the handler's turn: it was always
 * answered after authorization, so a caller learns nothing about a target it may not see.
 */
export function checkArgs(spec: ArgSpec & Pick<ToolSpec, "typed">, raw: unknown): CheckedArgs {
  const record = validateArgs(spec, raw);
  if (!spec.typed) return { record, parsed: record };
  try {
    return { record, parsed: spec.typed.parse(record) };
  } catch (err) {
    if (!(err instanceof KbError)) throw err;
    return { record, parsed: undefined, refusal: err };
  }
}

/** Runs the handler of a spec on arguments {@link checkArgs} returned. */
export function runChecked(spec: ToolSpec, args: CheckedArgs, ctx: ToolContext): Promise<unknown> {
  if (args.refusal) return Promise.reject(args.refusal);
  return spec.typed ? spec.typed.run(args.parsed, ctx) : spec.handler(args.record, ctx);
}

/** The refusal of a required string sent as `""`, for a parser or a cross-field rule. */
export function blankRequired(path: string): KbError {
  return new KbError("invalid_argument", `'${path}' is required: pass a non-empty string`, {
    argument: path,
  });
}

function parseObject(
  shape: Shape,
  value: Record<string, unknown>,
  path: string,
  open: boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, a] of Object.entries(shape)) {
    const v = value[key];
    const absent = v === undefined || v === null || (a.blankIsAbsent && v === "");
    if (!absent) out[key] = parseValue(a, v, join(path, key));
    else if (a.presence === "required") throw blankRequired(join(path, key));
    else if (a.presence === "defaulted") out[key] = a.fallback;
  }
  if (open) {
    for (const [key, v] of Object.entries(value)) if (!Object.hasOwn(shape, key)) out[key] = v;
  }
  return out;
}

function parseValue(a: AnyArg, value: unknown, path: string): unknown {
  if (a.fields)
    return parseObject(a.fields, value as Record<string, unknown>, path, a.open === true);
  if (a.items && Array.isArray(value)) {
    const items = a.items;
    return value.map((item, i) => parseValue(items, item, `${path}[${i}]`));
  }
  return value;
}

function checkObject(schema: Schema, value: Record<string, unknown>, path: string): void {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  for (const key of (schema.required ?? []) as string[]) {
    if (value[key] === undefined) throw bad(join(path, key), "is required");
  }
  for (const [key, v] of Object.entries(value)) {
    const prop = properties[key];
    if (prop === undefined) {
      if (schema.additionalProperties === false) {
        const known = Object.keys(properties);
        const hint = known.length > 0 ? `; known: ${known.join(", ")}` : "";
        throw bad(join(path, key), `is not a known argument${hint}`);
      }
      continue;
    }
    // An explicit null for an optional argument means "absent" (clients often send it).
    if (v === undefined || v === null) {
      if (v === null && ((schema.required ?? []) as string[]).includes(key)) {
        throw bad(join(path, key), "is required");
      }
      continue;
    }
    checkValue(prop, v, join(path, key));
  }
}

function checkValue(schema: Schema, value: unknown, path: string): void {
  const type = schema.type as string | undefined;
  switch (type) {
    case "string":
      if (typeof value !== "string") throw expected(path, "a string", value);
      if (Array.isArray(schema.enum) && !schema.enum.includes(value)) {
        throw expected(path, `one of ${(schema.enum as string[]).join("|")}`, value);
      }
      return;
    case "integer":
      if (typeof value !== "number" || !Number.isInteger(value)) {
        throw expected(path, `an integer${bounds(schema)}`, value);
      }
      checkBounds(schema, value, path, "an integer");
      return;
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value))
        throw expected(path, `a number${bounds(schema)}`, value);
      checkBounds(schema, value, path, "a number");
      return;
    case "boolean":
      if (typeof value !== "boolean") throw expected(path, "a boolean (true or false)", value);
      return;
    case "array": {
      if (!Array.isArray(value)) throw expected(path, "an array", value);
      const items = schema.items as Schema | undefined;
      if (items) {
        for (const [i, item] of value.entries()) checkValue(items, item, `${path}[${i}]`);
      }
      return;
    }
    case "object":
      if (!isRecord(value)) throw expected(path, "an object", value);
      checkObject(schema, value, path);
      return;
    default:
      return;
  }
}

function checkBounds(schema: Schema, value: number, path: string, kind: string): void {
  const min = schema.minimum as number | undefined;
  const max = schema.maximum as number | undefined;
  if ((min !== undefined && value < min) || (max !== undefined && value > max)) {
    throw expected(path, `${kind}${bounds(schema)}`, value);
  }
}

function bounds(schema: Schema): string {
  const min = schema.minimum as number | undefined;
  const max = schema.maximum as number | undefined;
  if (min !== undefined && max !== undefined) return ` between ${min} and ${max}`;
  if (min !== undefined) return ` ≥ ${min}`;
  if (max !== undefined) return ` ≤ ${max}`;
  return "";
}

function expected(path: string, what: string, got: unknown): KbError {
  return bad(path, `must be ${what}, got ${describe(got)}`);
}

function bad(path: string, problem: string): KbError {
  return new KbError("invalid_argument", `'${path}' ${problem}`, { argument: path });
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
