/** Reading the YAML config file into the validated FileConfig (schema.ts). */
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { SettingError } from "../../common/errors.js";
import { applyGoSpellings } from "./go-aliases.js";
import { dropGoZeroValues } from "./go-zero-values.js";
import { describeIssues, type FileConfig, fileConfigSchema } from "./schema.js";

/**
 * Reads and validates a config file. Go's zero values are dropped and Go's docs spellings renamed
 * first (go-zero-values.ts, go-aliases.ts); the renames' warnings go to `warnings`.
 */
export function loadConfigFile(path: string, warnings: string[] = []): FileConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new SettingError(
      `config file ${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? err})`,
    );
  }
  let raw: unknown;
  try {
    raw = parseYaml(text) ?? {};
  } catch (err) {
    throw new SettingError(
      `config file ${path}: not valid YAML: ${(err as Error).message.split("\n")[0]}`,
    );
  }
  let normalized: unknown;
  try {
    normalized = applyGoSpellings(dropGoZeroValues(raw), warnings);
  } catch (err) {
    if (err instanceof SettingError) throw new SettingError(`config file ${path}: ${err.message}`);
    throw err;
  }
  const parsed = fileConfigSchema.safeParse(normalized);
  if (!parsed.success) {
    throw new SettingError(`config file ${path}: ${describeIssues(parsed.error, normalized)}`);
  }
  return parsed.data;
}
