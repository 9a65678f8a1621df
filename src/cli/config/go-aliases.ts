/**
 * Go's documentation spells some keys differently from its own parser (docs/decisions.md "Go
 * docs spellings"): `git.auto_commit` in Go's concurrency.md is `git.autocommit` in its config
 * struct. Such a key is read as the key it means, with one warning; both at once is an error.
 */
import { SettingError } from "../../common/errors.js";

/** `[block, Go docs spelling, our key]`. */
const GO_SPELLINGS: ReadonlyArray<readonly [string, string, string]> = [
  ["git", "auto_commit", "autocommit"],
];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The raw YAML with Go's docs spellings renamed (the input is not modified). */
export function applyGoSpellings(raw: unknown, warnings: string[]): unknown {
  if (!isRecord(raw)) return raw;
  const root = { ...raw };
  for (const [blockName, spelling, key] of GO_SPELLINGS) {
    const block = root[blockName];
    if (!isRecord(block) || !(spelling in block)) continue;
    if (key in block)
      throw new SettingError(
        `${blockName}.${spelling} and ${blockName}.${key} are the same setting; keep ${blockName}.${key}`,
      );
    const { [spelling]: value, ...rest } = block;
    root[blockName] = { ...rest, [key]: value };
    warnings.push(
      `config key ${blockName}.${spelling} is read as ${blockName}.${key} (Go's documentation spelling); write ${blockName}.${key}`,
    );
  }
  return root;
}
