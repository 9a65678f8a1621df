/**
 * The one precedence rule of every setting: flag > environment variable > YAML key > default,
 * with one rule for empty values (docs/decisions.md "An empty variable is unset, an empty flag is
 * refused"). The winner comes back with its source, the flag, variable or key as the operator
 * wrote it, so a message about a bad value names the place it was set.
 */
import { SettingError } from "../../common/errors.js";
import type { Env } from "./types.js";

export interface Picked<T> {
  readonly value: T;
  /** `--data`, `CARTOGRAPHER_DATA`, `data` (the YAML key's dotted path) or `default`. */
  readonly source: string;
}

/** Where one setting can be given; leave a layer out when the setting has none. */
export interface SettingLayers<F, Y> {
  /** The flag's spelling and its parsed value (undefined: not on the command line). */
  readonly flag?: readonly [string, F | undefined];
  /** The variable's name; its value is read from the environment given to `settingsFrom`. */
  readonly env?: string;
  /** The YAML key's dotted path and its value (undefined: not in the file). */
  readonly key?: readonly [string, Y | undefined];
}

const DEFAULT_SOURCE = "default";

function emptyFlagError(flag: string): SettingError {
  return new SettingError(`${flag} is empty; give it a value or leave the flag out`);
}

/** True for a value that says nothing: undefined, `""`, or a list with nothing in it. */
function isUnset(value: unknown): boolean {
  return value === undefined || value === "" || (Array.isArray(value) && value.length === 0);
}

export interface Settings {
  /** The winning layer's value and name, or undefined when no layer sets it. */
  pick<F = never, Y = never>(layers: SettingLayers<F, Y>): Picked<F | string | Y> | undefined;
  /** The same, with `fallback` (source `default`) when no layer sets it. */
  pick<F = never, Y = never, D = never>(
    layers: SettingLayers<F, Y>,
    fallback: D,
  ): Picked<F | string | Y | D>;
  /** A variable's value when it is set (an empty one is unset). */
  variable(name: string): Picked<string> | undefined;
}

export function settingsFrom(env: Env): Settings {
  const variable = (name: string): Picked<string> | undefined => {
    const value = env[name];
    return value === undefined || value === "" ? undefined : { value, source: name };
  };
  function pick<F, Y, D>(
    { flag, env: name, key }: SettingLayers<F, Y>,
    ...fallback: [D] | []
  ): Picked<F | string | Y | D> | undefined {
    if (flag && flag[1] !== undefined) {
      const value = flag[1];
      // A flag typed empty is nearly always an unset shell variable (`--data "$DIR"`).
      if (value === "" || (Array.isArray(value) && value.some((v) => v === "")))
        throw emptyFlagError(flag[0]);
      if (!isUnset(value)) return { value, source: flag[0] };
    }
    const fromEnv = name === undefined ? undefined : variable(name);
    if (fromEnv) return fromEnv;
    if (key && !isUnset(key[1])) return { value: key[1] as Y, source: key[0] };
    return fallback.length === 1 ? { value: fallback[0], source: DEFAULT_SOURCE } : undefined;
  }
  return { pick: pick as Settings["pick"], variable };
}
