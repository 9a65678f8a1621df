/**
 * Typed readers for the arguments of the read, graph and governance tools. The surface has
 * already checked the JSON schema; these narrow the types and name the argument on a mismatch
 * (a handler called directly, e.g. from a test, still gets a clear `invalid_argument`).
 */
import { KbError } from "../../kb/errors.js";

type Args = Record<string, unknown>;

function bad(name: string, want: string): KbError {
  return new KbError("invalid_argument", `argument "${name}" must be ${want}`);
}

export function reqString(args: Args, name: string): string {
  const v = args[name];
  if (typeof v !== "string" || v.length === 0) throw bad(name, "a non-empty string");
  return v;
}

export function optString(args: Args, name: string): string | undefined {
  const v = args[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw bad(name, "a string");
  return v;
}

export function optBool(args: Args, name: string): boolean {
  const v = args[name];
  if (v === undefined || v === null) return false;
  if (typeof v !== "boolean") throw bad(name, "true or false");
  return v;
}

/** An integer in [min, max]; `fallback` when absent. */
export function optInt(
  args: Args,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const v = args[name];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) {
    throw bad(name, `an integer from ${min} to ${max}`);
  }
  return v;
}

export function optStringList(args: Args, name: string): string[] | undefined {
  const v = args[name];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string"))
    throw bad(name, "a list of strings");
  return v as string[];
}

/** One of `choices`; `fallback` when absent. */
export function optEnum<T extends string>(
  args: Args,
  name: string,
  choices: readonly T[],
  fallback: T,
): T {
  const v = args[name];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== "string" || !(choices as readonly string[]).includes(v)) {
    throw bad(name, `one of ${choices.join(", ")}`);
  }
  return v as T;
}
