/**
 * Which age key file each KB's sops child gets (SOPS_AGE_KEY_FILE), in the Go order (D53):
 * `kbs[].sops_age_key_file`, else `<sops.age_key_dir>/<kb name>.age` when that file exists,
 * else `sops.age_key_file`; CARTOGRAPHER_SOPS_AGE_KEY_DIR / _FILE override the `sops` block.
 * A KB without a key serves everything but the secret tools, which answer not_configured.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { SOPS_AGE_KEY_DIR_VAR, SOPS_AGE_KEY_FILE_VAR } from "./go-keys.js";
import type { Settings } from "./pick.js";
import type { FileConfig } from "./schema.js";
import type { KbMountSpec } from "./types.js";

/** `spec` with the per-KB key of its `kbs[]` entry (resolved against the working dir). */
export function withKbSopsKey(
  spec: KbMountSpec,
  keyFile: string | undefined,
  at: (p: string) => string,
): KbMountSpec {
  return keyFile ? { ...spec, sopsAgeKeyFile: at(keyFile) } : spec;
}

/** Every KB with its key file (Go order above); a configured key that is missing is warned about. */
export function applySopsKeys(
  kbs: KbMountSpec[],
  sops: FileConfig["sops"],
  settings: Settings,
  at: (p: string) => string,
  warnings: string[],
): KbMountSpec[] {
  const dirSetting = settings.pick({
    env: SOPS_AGE_KEY_DIR_VAR,
    key: ["sops.age_key_dir", sops?.age_key_dir],
  })?.value;
  const fileSetting = settings.pick({
    env: SOPS_AGE_KEY_FILE_VAR,
    key: ["sops.age_key_file", sops?.age_key_file],
  })?.value;
  return kbs.map((kb) => {
    let key = kb.sopsAgeKeyFile;
    if (!key && dirSetting) {
      const candidate = join(at(dirSetting), `${kb.name}.age`);
      if (existsSync(candidate)) key = candidate;
    }
    if (!key && fileSetting) key = at(fileSetting);
    if (!key) return kb;
    if (!existsSync(key)) {
      warnings.push(
        `KB ${kb.name}: sops age key file ${key} does not exist; its secret tools will fail until it does`,
      );
    }
    return { ...kb, sopsAgeKeyFile: key };
  });
}
