/**
 * `auth.oauth.introspection` (docs/auth.md "Opaque tokens (RFC 7662 introspection)"): how the
 * server asks the identity provider about an opaque access token. YAML only:
 *   endpoint            default: `introspection_endpoint` of the issuer's metadata
 *   client_id           required: the client this server authenticates as
 *   client_secret_env   required: the NAME of the variable holding its secret
 *   cache_seconds       default 60 (0–3600; 0 = ask every time)
 * The secret is read here, from the variable `client_secret_env` names, and passed down; no
 * message ever quotes it (nor a `client_secret_env` that does not look like a variable name,
 * which may be a secret pasted in the wrong place).
 */
import { z } from "zod";
import {
  DEFAULT_INTROSPECTION_CACHE_SECONDS,
  type IntrospectionSettings,
} from "../../auth/oauth/types.js";
import { SettingError } from "../../common/errors.js";
import { checkSeconds, checkUrl } from "./oauth-values.js";
import type { Settings } from "./pick.js";

const MAX_CACHE_SECONDS = 3600;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const KEY = "auth.oauth.introspection";

export const introspectionSchema = z.strictObject({
  endpoint: z.string().optional(),
  client_id: z.string().optional(),
  client_secret_env: z.string().optional(),
  cache_seconds: z.number().optional(),
});

export type IntrospectionSection = z.infer<typeof introspectionSchema>;

/**
 * The introspection settings of a parsed `auth.oauth.introspection` block.
 * @throws SettingError naming the key and the fix.
 */
export function resolveIntrospection(
  settings: Settings,
  section: IntrospectionSection,
): IntrospectionSettings {
  const clientId = section.client_id?.trim() ?? "";
  if (clientId === "")
    throw new SettingError(
      `${KEY}.client_id: is not set; give the client id your identity provider registered for this server (a confidential client allowed to introspect)`,
    );
  const name = section.client_secret_env?.trim() ?? "";
  if (name === "")
    throw new SettingError(
      `${KEY}.client_secret_env: is not set; give the NAME of the environment variable holding the client secret (e.g. CARTOGRAPHER_INTROSPECTION_SECRET)`,
    );
  if (!VARIABLE_NAME.test(name))
    throw new SettingError(
      `${KEY}.client_secret_env: is not an environment variable name; give the NAME of the variable holding the client secret, never the secret itself`,
    );
  const secret = settings.variable(name)?.value;
  if (secret === undefined)
    throw new SettingError(
      `${KEY}.client_secret_env: the environment variable ${name} is not set; export it with the client secret of ${clientId}`,
    );
  const result: IntrospectionSettings = {
    clientId,
    clientSecret: secret,
    cacheSeconds: checkSeconds(
      section.cache_seconds,
      `${KEY}.cache_seconds`,
      DEFAULT_INTROSPECTION_CACHE_SECONDS,
      MAX_CACHE_SECONDS,
    ),
  };
  if (section.endpoint !== undefined)
    result.endpoint = checkUrl(
      section.endpoint,
      `${KEY}.endpoint`,
      "the introspection endpoint of your identity provider",
    );
  return result;
}
