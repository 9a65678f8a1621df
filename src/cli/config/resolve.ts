/**
 * Resolves the server configuration ONCE, at the edge (design.md P7): every setting by the one
 * rule of pick.ts (flag > env > YAML > default), into one validated, frozen object. Only src/cli
 * reads the environment; it passes `env` in here so the resolution itself is testable.
 */
import { resolve as resolvePath } from "node:path";
import { SettingError } from "../../common/errors.js";
import { resolveAudit } from "./audit-keys.js";
import { resolveAuthSettings } from "./auth-keys.js";
import { loadConfigFile } from "./config-file.js";
import { resolveConsole } from "./console-keys.js";
import { warnDeprecated } from "./deprecated-keys.js";
import { resolveEmbeddings } from "./embeddings-keys.js";
import { goKeyWarnings } from "./go-keys.js";
import { resolveHttpLimits } from "./http-limits.js";
import { checkDataDir, dedupeKbs, kbCandidates } from "./kb-specs.js";
import { resolveMetrics } from "./metrics-keys.js";
import { type Picked, settingsFrom } from "./pick.js";
import { resolvePublicUrl } from "./public-url.js";
import type { FileConfig } from "./schema.js";
import { applySopsKeys } from "./sops-keys.js";
import { checkRemoteKbs, envRemotes, gitAuthorOf, resolveSyncConfig } from "./sync-keys.js";
import type { Env, ServeFlags, ServerConfig } from "./types.js";
import {
  booleanSetting,
  DEFAULT_HOST,
  DEFAULT_PORT,
  parseHttpAddress,
  parseList,
  parseRefreshSeconds,
} from "./values.js";

export const EMBEDDED_DATA_DIR = "cartographer-data";
export const DEFAULT_INDEX_REFRESH_SECONDS = 30;
export const DEFAULT_MAX_BODY_BYTES = 2 * 1024 * 1024;

export function resolveServerConfig(flags: ServeFlags, env: Env, cwd: string): ServerConfig {
  const settings = settingsFrom(env);
  const warnings: string[] = [];
  const configPath = settings.pick({
    flag: ["--config", flags.config],
    env: "CARTOGRAPHER_CONFIG",
  });
  const at = (p: string) => resolvePath(cwd, p);
  const file: FileConfig = configPath ? loadConfigFile(at(configPath.value), warnings) : {};

  warnDeprecated(file, settings, flags, warnings);
  warnings.push(...goKeyWarnings(file, env));

  const httpSetting = settings.pick({
    flag: ["--http", flags.http],
    env: "CARTOGRAPHER_HTTP",
    key: ["http", file.http],
  });
  const http = httpSetting
    ? parseHttpAddress(httpSetting.value, httpSetting.source)
    : { host: DEFAULT_HOST, port: DEFAULT_PORT };

  const data = settings.pick({
    flag: ["--data", flags.data],
    env: "CARTOGRAPHER_DATA",
    key: ["data", file.data],
  });
  // `--kb a,b` is two KBs, like CARTOGRAPHER_KB (and Go's --kb).
  const kbSetting = settings.pick({ flag: ["--kb", flags.kb], env: "CARTOGRAPHER_KB" });
  const kbPaths: Picked<string[]> | undefined = kbSetting && {
    value:
      typeof kbSetting.value === "string"
        ? parseList(kbSetting.value)
        : kbSetting.value.flatMap(parseList),
    source: kbSetting.source,
  };

  const profile = settings.pick(
    {
      flag: ["--tools-profile", flags.toolsProfile],
      env: "CARTOGRAPHER_TOOLS_PROFILE",
      key: ["tools.profile", file.tools?.profile],
    },
    "agent",
  );
  if (profile.value !== "agent" && profile.value !== "full")
    throw new SettingError(
      `${profile.source}: '${profile.value}' is not a tools profile; use agent or full`,
    );
  const autocommit = booleanSetting(
    settings.pick(
      {
        flag: ["--git-autocommit", flags.gitAutocommit],
        env: "CARTOGRAPHER_GIT_AUTOCOMMIT",
        key: ["git.autocommit", file.git?.autocommit],
      },
      true,
    ),
  );
  const globalAuthor = gitAuthorOf(file.git);

  const initMissing =
    settings.pick({ flag: ["--init", flags.init], key: ["init", file.init] }, false).value === true;
  const embeddedDefault =
    data === undefined &&
    kbPaths === undefined &&
    (file.kbs === undefined || file.kbs.length === 0);
  const dataDir = embeddedDefault ? at(EMBEDDED_DATA_DIR) : data ? at(data.value) : null;
  if (data) {
    // Remote KBs are cloned into it, so serve creates it for them too.
    const clones =
      envRemotes(settings).length > 0 || (file.kbs ?? []).some((k) => k.remote && !k.path);
    checkDataDir(at(data.value), data.value, data.source, initMissing || clones);
  }

  const candidates = kbCandidates({ kbPaths, file, settings, dataDir, globalAuthor, at });
  const kbs = applySopsKeys(dedupeKbs(candidates, warnings), file.sops, settings, at, warnings);

  const transport = flags.stdio ? "stdio" : httpSetting ? "http" : kbPaths ? "stdio" : "http";

  const refresh = settings.pick(
    {
      env: "CARTOGRAPHER_INDEX_REFRESH_SECONDS",
      key: ["index.refresh_seconds", file.index?.refresh_seconds],
    },
    DEFAULT_INDEX_REFRESH_SECONDS,
  );
  const config: ServerConfig = {
    configPath: configPath ? at(configPath.value) : null,
    transport,
    http,
    dataDir,
    embeddedDefault,
    kbs,
    initMissing,
    toolsProfile: profile.value,
    autocommit,
    corsOrigins: file.cors?.origins ?? [],
    allowedHosts: file.allowed_hosts ?? [],
    allowedOrigins: file.allowed_origins ?? [],
    maxBodyBytes: file.max_body_bytes ?? DEFAULT_MAX_BODY_BYTES,
    httpLimits: resolveHttpLimits(settings, file, flags),
    publicUrl: resolvePublicUrl(settings, flags, file),
    auth: resolveAuthSettings(settings, flags, file),
    allowInsecureNoAuth: flags.insecureNoAuth ?? false,
    audit: resolveAudit(settings, flags, file, at),
    console: resolveConsole(settings, file.console),
    metrics: resolveMetrics(settings, file.metrics),
    sync: resolveSyncConfig(settings, file, at, flags),
    embeddings: resolveEmbeddings(file.search, settings, flags),
    indexRefreshSeconds:
      typeof refresh.value === "number"
        ? refresh.value
        : parseRefreshSeconds(refresh.value, refresh.source),
    warnings,
  };
  checkRemoteKbs(kbs, autocommit, config.sync, warnings);
  return deepFreeze(config);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
