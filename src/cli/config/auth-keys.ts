/**
 * What `serve` hands src/auth: the raw `auth` block (Go's `mode: on|off` read as booleans) and
 * the `--auth` / CARTOGRAPHER_AUTH and `--tokens` / CARTOGRAPHER_TOKENS overrides with their
 * source, so src/auth's messages name the one the operator set; and `auth.oauth`, resolved.
 */
import { resolveOAuthSettings, splitOAuthSection } from "./oauth-keys.js";
import type { Settings } from "./pick.js";
import type { FileConfig } from "./schema.js";
import type { ServeFlags, ServerConfig } from "./types.js";

export function resolveAuthSettings(
  settings: Settings,
  flags: ServeFlags,
  file: FileConfig,
): ServerConfig["auth"] {
  const mode = settings.pick({ flag: ["--auth", flags.auth], env: "CARTOGRAPHER_AUTH" });
  const tokens = settings.pick({ flag: ["--tokens", flags.tokens], env: "CARTOGRAPHER_TOKENS" });
  // `auth.oauth` is resolved here (oauth-keys.ts); src/auth's schema gets the rest.
  const { auth, oauth: oauthSection } = splitOAuthSection(file.auth);
  const oauth = resolveOAuthSettings(settings, oauthSection);
  return {
    section: goAuthSection(auth),
    ...(mode ? { mode } : {}),
    ...(tokens ? { tokens } : {}),
    ...(oauth ? { oauth } : {}),
  };
}

/** Go's `auth.mode: on|off` (and yes/no/1/0 strings) become the booleans src/auth reads. */
function goAuthSection(section: unknown): unknown {
  if (section === null || typeof section !== "object" || Array.isArray(section)) return section;
  const mode = (section as { mode?: unknown }).mode;
  if (typeof mode !== "string" || mode === "auto") return section;
  const lower = mode.trim().toLowerCase();
  const asBoolean = ["on", "true", "yes", "1"].includes(lower)
    ? true
    : ["off", "false", "no", "0"].includes(lower)
      ? false
      : undefined;
  return asBoolean === undefined ? section : { ...section, mode: asBoolean };
}
