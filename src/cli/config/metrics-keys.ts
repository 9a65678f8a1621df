/**
 * The `metrics` block (docs/operations.md "Metrics"): `GET /metrics`, off by default.
 *   metrics.enabled    CARTOGRAPHER_METRICS   false
 *   metrics.token_env  (the name of the variable holding the scrape bearer; unset: loopback only)
 * The token is read here, from the variable `token_env` names, and passed down; no message ever
 * quotes it.
 */
import { z } from "zod";
import { SettingError } from "../../common/errors.js";
import type { Settings } from "./pick.js";
import type { MetricsSettings } from "./types.js";
import { booleanSetting } from "./values.js";

export const metricsSchema = z.strictObject({
  enabled: z.boolean().optional(),
  /** Name of the environment variable holding the bearer a scraper sends. */
  token_env: z.string().min(1).optional(),
});

export type MetricsSection = z.infer<typeof metricsSchema>;

export function resolveMetrics(
  settings: Settings,
  section: MetricsSection | undefined,
): MetricsSettings {
  const enabled = booleanSetting(
    settings.pick(
      { env: "CARTOGRAPHER_METRICS", key: ["metrics.enabled", section?.enabled] },
      false,
    ),
  );
  const tokenEnv = section?.token_env;
  if (!enabled || tokenEnv === undefined) return { enabled, token: null };
  const token = settings.variable(tokenEnv)?.value;
  if (token === undefined)
    throw new SettingError(
      `metrics.token_env: the environment variable ${tokenEnv} is not set; export it with the scrape token, or remove metrics.token_env to answer loopback peers only`,
    );
  if (/\s/.test(token))
    throw new SettingError(
      `metrics.token_env: the value of ${tokenEnv} contains whitespace, which a bearer token cannot; set it to the token alone`,
    );
  return { enabled, token };
}
