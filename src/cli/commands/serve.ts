/**
 * `cartographer serve`: resolves the config once, opens every KB, then serves stdio or HTTP
 * until the input ends or SIGINT/SIGTERM arrives (graceful: in-flight calls finish, indexes
 * close). Diagnostics go to stderr; in stdio mode stdout is the protocol and nothing else.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import type { KbSettings } from "../../kb/core/types.js";
import { initKb } from "../../kb/store/init.js";
import { openKb } from "../../kb/store/store.js";
import { writeWelcomeMap } from "../../kb/store/welcome.js";
import { abortNetworkGit } from "../../kb/sync/network-git.js";
import { type Logger, stderrLogger } from "../../logger.js";
import { type Cartographer, createCartographer } from "../../mcp/app.js";
import { serveStdio, stdioSurfaceOf } from "../../mcp/stdio.js";
import type { ServerMetrics } from "../../metrics/server-metrics.js";
import { VERSION } from "../../version.js";
import type { CommandContext } from "../command-context.js";
import { resolveServerConfig } from "../config/resolve.js";
import type { ServeFlags, ServerConfig } from "../config/types.js";
import { isLoopbackHost } from "../config/values.js";
import { CliExit, type CliIo, EXIT_USAGE } from "../io.js";
import { watchLauncher } from "../launcher-watch.js";
import { cloneMissingRemotes, syncSettingsFor } from "./kb-clone.js";
import { buildServerAuth } from "./serve-auth.js";
import { initForServe } from "./serve-init.js";

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerServeCommand(program: Command, { io, setExit }: CommandContext): void {
  program
    .command("serve")
    .description(
      "serve KBs over HTTP, or stdio with --stdio (or --kb and no HTTP address); with no configuration, ./cartographer-data on 127.0.0.1:39273",
    )
    .option("--config <file>", "YAML config file (env CARTOGRAPHER_CONFIG)")
    .option(
      "--kb <path>",
      "a KB to mount (repeatable or a comma list a,b; env CARTOGRAPHER_KB)",
      collect,
    )
    .option("--data <dir>", "mount every KB under this directory (env CARTOGRAPHER_DATA)")
    .option("--http <address>", "serve HTTP on host:port (env CARTOGRAPHER_HTTP)")
    .option("--stdio", "serve stdio even when an HTTP address is configured")
    .option(
      "--init",
      "create missing KBs: those named with --kb, and every empty subfolder of --data (YAML init: true)",
    )
    .option(
      "--tools-profile <profile>",
      "agent (default: advanced tools hidden) or full (env CARTOGRAPHER_TOOLS_PROFILE)",
    )
    .option(
      "--tokens <list>",
      "bearer tokens, tok|kb:a:rw;kb:b:r,tok2 (env CARTOGRAPHER_TOKENS; replaces YAML tokens)",
    )
    .option("--auth <mode>", "auto, true or false (env CARTOGRAPHER_AUTH)")
    .option("--insecure-no-auth", "allow HTTP without auth on a non-loopback address")
    .option(
      "--public-url <url>",
      "public base URL behind a proxy, for auth metadata (env CARTOGRAPHER_PUBLIC_URL)",
    )
    .option("--audit-log <file>", "append the audit log here (env CARTOGRAPHER_AUDIT_LOG)")
    .option(
      "--max-connections <n>",
      "HTTP connections served at once, default 256; /health stays reachable beyond (env CARTOGRAPHER_MAX_CONNECTIONS)",
    )
    .option(
      "--git-sync [bool]",
      "push and pull KBs that have an origin, default true (env CARTOGRAPHER_GIT_SYNC; Go's flag)",
    )
    .option(
      "--git-autocommit [bool]",
      "commit after each write, default true (env CARTOGRAPHER_GIT_AUTOCOMMIT; Go's flag)",
    )
    .option(
      "--ollama <url>",
      "Ollama base URL for semantic/hybrid search (env CARTOGRAPHER_OLLAMA; Go's flag)",
    )
    .option("--mount-mode <mode>", "deprecated and ignored (D288)")
    .action(async (flags: ServeFlags) => {
      setExit(await serveCommand(io, flags));
    });
}

export async function serveCommand(io: CliIo, flags: ServeFlags): Promise<number> {
  const logger = stderrLogger(io.stderr);
  let config = resolveServerConfig(flags, io.env, io.cwd);
  for (const warning of config.warnings) logger.warn(warning);
  // Every refusal comes before anything is created on disk (starter KB, --init).
  const auth = buildServerAuth(config, io.env);
  if (
    config.transport === "http" &&
    !auth.compiled.enabled &&
    !isLoopbackHost(config.http.host) &&
    !config.allowInsecureNoAuth
  ) {
    throw new CliExit(
      EXIT_USAGE,
      `refusing to serve ${config.http.host} without auth: configure tokens (auth.tokens / CARTOGRAPHER_TOKENS), bind a loopback address, or pass --insecure-no-auth`,
    );
  }
  if (config.embeddedDefault && config.kbs.length === 0) {
    await createStarterKb(config, logger);
    config = resolveServerConfig(flags, io.env, io.cwd);
  }
  if (config.initMissing && (await initForServe(config, logger)) > 0)
    config = resolveServerConfig(flags, io.env, io.cwd);
  await cloneMissingRemotes(config, io.env, logger);
  // Compiled again over the KBs init and clone added: scopes bind to mounted names (kb-name.ts).
  const servedAuth = buildServerAuth(config, io.env, logger);
  if (config.kbs.length === 0)
    logger.warn("no KB is mounted: /ready answers 503 until one is configured");

  const metrics = await serverMetrics(config, logger);
  // The composition root: a KB that cannot open is reported and skipped, never fatal.
  const app = await createCartographer({
    kbs: config.kbs.map(kbSettings(config, io.env)),
    logger,
    indexRefreshMs: config.indexRefreshSeconds * 1000,
    ...(config.embeddings ? { embeddings: config.embeddings } : {}),
    ...(config.audit ? { auditLog: auditLogOptions(config.audit) } : {}),
    ...(metrics ? { metrics } : {}),
  });
  try {
    return config.transport === "stdio"
      ? await runStdio(io, config, app)
      : await runHttp(io, config, app, servedAuth, metrics);
  } finally {
    await app.close();
  }
}

const kbSettings =
  (config: ServerConfig, env: Record<string, string | undefined>) =>
  (kb: ServerConfig["kbs"][number]): KbSettings => ({
    name: kb.name,
    root: kb.root,
    allowArtifactWrite: kb.allowArtifactWrite,
    autocommit: config.autocommit,
    ...(kb.gitAuthor ? { gitAuthor: kb.gitAuthor } : {}),
    // The sops child starts from the server's environment plus SOPS_AGE_KEY_FILE (kb/sops.ts).
    ...(kb.sopsAgeKeyFile ? { sops: { ageKeyFile: kb.sopsAgeKeyFile, env } } : {}),
    // Remote sync runs when the KB has an origin (docs/sync.md, kb-clone.ts).
    sync: syncSettingsFor(config, kb, env),
    // A write's commit reads git's setup from the server's environment (kb/git/path-commit.ts).
    gitEnv: env,
    ...(kb.artifactSigningSeed ? { artifactSigningSeed: kb.artifactSigningSeed } : {}),
    ...(kb.mcpAllowlist ? { mcpAllowlist: kb.mcpAllowlist } : {}),
  });

/** The metrics of this server when `metrics.enabled` over HTTP (prom-client loads only then). */
async function serverMetrics(config: ServerConfig, logger: Logger) {
  if (!config.metrics.enabled) return undefined;
  if (config.transport === "stdio") {
    logger.warn(
      "metrics.enabled: GET /metrics is served over HTTP only; this stdio server has none",
    );
    return undefined;
  }
  const { ServerMetrics } = await import("../../metrics/server-metrics.js");
  return new ServerMetrics();
}

function auditLogOptions(audit: NonNullable<ServerConfig["audit"]>) {
  return {
    path: audit.log,
    mode: audit.mode,
    keySeedHex: audit.keySeedHex,
    maxSegmentBytes: audit.maxSegmentBytes,
    archiveDir: audit.archiveDir,
    retentionDays: audit.retentionDays,
  };
}

async function createStarterKb(config: ServerConfig, logger: Logger): Promise<void> {
  const dataDir = config.dataDir as string;
  mkdirSync(dataDir, { recursive: true });
  const root = join(dataDir, "notes");
  await initKb(root, { title: "Notes" });
  const store = await openKb({ name: "notes", root, allowArtifactWrite: false, autocommit: true });
  await writeWelcomeMap(store);
  logger.info(`created the starter KB 'notes' at ${root}, with a welcome map (data/welcome/)`);
}

async function runStdio(io: CliIo, config: ServerConfig, app: Cartographer): Promise<number> {
  let surface: ReturnType<typeof stdioSurfaceOf>;
  try {
    surface = stdioSurfaceOf(app);
  } catch (err) {
    throw new CliExit(EXIT_USAGE, (err as Error).message);
  }
  const session = await serveStdio(surface, {
    stdin: io.stdin as never,
    stdout: io.stdout as never,
    logger: app.logger,
    version: VERSION,
    profile: config.toolsProfile,
  });
  const stop = onSignals(io.env, () => session.close());
  await session.closed;
  stop();
  // After a signal the client may still hold stdin open; an open stdin keeps the process alive.
  (io.stdin as { destroy?: () => void }).destroy?.();
  return 0;
}

async function runHttp(
  io: CliIo,
  config: ServerConfig,
  app: Cartographer,
  auth: ReturnType<typeof buildServerAuth>,
  metrics: ServerMetrics | undefined,
): Promise<number> {
  const logger = app.logger;
  // The HTTP stack is imported only when serving HTTP: stdio starts without it (docs/decisions.md
  // "The CLI imports a command's module only when").
  const { startHttpServer } = await import("../../http/server.js");
  const server = await startHttpServer({
    app,
    toolsProfile: config.toolsProfile,
    host: config.http.host,
    port: config.http.port,
    allowedHosts: [...config.allowedHosts],
    allowedOrigins: [...config.allowedOrigins],
    corsOrigins: [...config.corsOrigins],
    maxBodyBytes: config.maxBodyBytes,
    ...config.httpLimits,
    consoleSessions: {
      idleMs: config.console.sessionIdleMs,
      absoluteMs: config.console.sessionLifetimeMs,
    },
    ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
    auth: auth.compiled.enabled
      ? {
          tokens: auth.compiled.store,
          authorizationServers: auth.authorizationServers,
          ...(auth.oauth ? { oauth: auth.oauth } : {}),
        }
      : undefined,
    allowInsecureNoAuth: config.allowInsecureNoAuth,
    version: VERSION,
    ...(metrics ? { metrics: { metrics, token: config.metrics.token } } : {}),
  }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "EADDRINUSE" || err.code === "EACCES") {
      const where = `${config.http.host}:${config.http.port}`;
      const why =
        err.code === "EADDRINUSE"
          ? "is already in use (another server?)"
          : "may not be bound by this user";
      throw new CliExit(
        1,
        `${where} ${why}: choose another address with --http HOST:PORT or CARTOGRAPHER_HTTP`,
      );
    }
    throw err;
  });
  // Handlers go in before the endpoints are printed: whoever reads that line may signal at once.
  const stopped = new Promise<void>((resolve) => {
    onSignals(io.env, () => {
      logger.info("shutting down: finishing in-flight calls");
      server.close().then(resolve, (err) => {
        logger.error(`shutdown: ${(err as Error).message}`);
        resolve();
      });
    });
  });
  printEndpoints(io, server.url, app, config, auth.compiled.enabled);
  await stopped;
  return 0;
}

function authLine(authOn: boolean, host: string): string {
  if (authOn) return "bearer tokens required";
  return isLoopbackHost(host)
    ? "off (loopback only)"
    : "OFF on a non-loopback address (--insecure-no-auth): every client is admin";
}

function printEndpoints(
  io: CliIo,
  url: string,
  app: Cartographer,
  config: ServerConfig,
  authOn: boolean,
): void {
  const lines = [`cartographer ${VERSION} listening on ${url}`];
  const rootOf = (name: string) => config.kbs.find((k) => k.name === name)?.root ?? "";
  if (app.kbs.length > 0) {
    if (app.surfaces.size > 0) lines.push(`  routed (all KBs):  ${url}/mcp/routed`);
    for (const kb of app.kbs) {
      const where = kb.status === "ok" ? `${url}/mcp/${kb.name}  ` : "UNAVAILABLE (see the log)";
      lines.push(`  KB ${kb.name.padEnd(14)} ${where} (${rootOf(kb.name)})`);
    }
  }
  lines.push(`  console:           ${url}/`);
  lines.push(`  health:            ${url}/health`);
  lines.push(`  auth:              ${authLine(authOn, config.http.host)}`);
  lines.push(
    "",
    `next: connect an agent tool, e.g.  npx cartographer connect claude --server-url ${url}`,
    "      then ask it for an overview of your KB; to read it yourself, open the console in a browser",
    `      (${url}/ : browse, search, and what agents changed; a new KB's welcome map explains it)`,
  );
  io.stdout.write(`${lines.join("\n")}\n`);
}

/**
 * Calls `handler` once on SIGINT or SIGTERM, or when the npm script runner that started us is
 * gone (launcher-watch.ts); returns a function that removes the listeners.
 */
function onSignals(env: CliIo["env"], handler: () => void): () => void {
  let fired = false;
  const listener = () => {
    if (fired) return;
    fired = true;
    // A git fetch/push hung on a silent remote must not outlast the drain (docs/sync.md).
    abortNetworkGit();
    handler();
  };
  process.on("SIGINT", listener);
  process.on("SIGTERM", listener);
  const unwatch = watchLauncher(env, listener);
  return () => {
    process.off("SIGINT", listener);
    process.off("SIGTERM", listener);
    unwatch();
  };
}
