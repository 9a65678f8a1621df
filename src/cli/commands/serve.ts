/**
 * `cartographer serve`: resolves the config once, opens every KB, then serves stdio or HTTP
 * until the input ends or SIGINT/SIGTERM arrives (graceful: in-flight calls finish, indexes
 * close). Diagnostics go to stderr; in stdio mode stdout is the protocol and nothing else.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { openAuditSink } from "../../audit/sink.js";
import type { AuditSink } from "../../audit/types.js";
import { startHttpServer } from "../../http/server.js";
import { initKb } from "../../kb/init.js";
import type { KbSettings } from "../../kb/types.js";
import { type Logger, stderrLogger } from "../../logger.js";
import { closeMount, type MountedKb, mountKb } from "../../mcp/mount.js";
import { serveStdio, stdioSurface } from "../../mcp/stdio.js";
import { surfaceForMount } from "../../mcp/surface-for-mount.js";
import { VERSION } from "../../version.js";
import { resolveServerConfig, type ServeFlags, type ServerConfig } from "../config/resolve.js";
import { isLoopbackHost } from "../config/values.js";
import { CliExit, type CliIo, EXIT_USAGE } from "../io.js";
import type { CommandContext } from "../program.js";
import { buildServerAuth } from "./serve-auth.js";

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerServeCommand(program: Command, { io, setExit }: CommandContext): void {
  program
    .command("serve")
    .description(
      "serve KBs over HTTP, or stdio with --stdio (or --kb and no HTTP address); with no configuration, ./cartographer-data on 127.0.0.1:39273",
    )
    .option("--config <file>", "YAML config file (env CARTOGRAPHER_CONFIG)")
    .option("--kb <path>", "a KB to mount (repeatable; env CARTOGRAPHER_KB, comma list)", collect)
    .option("--data <dir>", "mount every KB under this directory (env CARTOGRAPHER_DATA)")
    .option("--http <address>", "serve HTTP on host:port (env CARTOGRAPHER_HTTP)")
    .option("--stdio", "serve stdio even when an HTTP address is configured")
    .option("--init", "create a KB named with --kb when it does not exist yet")
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
  await initMissingKbs(config, logger);
  if (config.kbs.length === 0)
    logger.warn("no KB is mounted: /ready answers 503 until one is configured");

  const audit = config.audit
    ? await openAuditSink({
        path: config.audit.log,
        mode: config.audit.mode,
        keySeedHex: config.audit.keySeedHex,
        maxSegmentBytes: config.audit.maxSegmentBytes,
        archiveDir: config.audit.archiveDir,
        retentionDays: config.audit.retentionDays,
        logger,
      })
    : null;
  const mounts = await mountAll(config, logger);
  try {
    return config.transport === "stdio"
      ? await runStdio(io, config, mounts, audit, logger)
      : await runHttp(io, config, mounts, audit, auth, logger);
  } finally {
    await audit?.close();
  }
}

async function createStarterKb(config: ServerConfig, logger: Logger): Promise<void> {
  const dataDir = config.dataDir as string;
  mkdirSync(dataDir, { recursive: true });
  const root = join(dataDir, "notes");
  await initKb(root, { title: "Notes" });
  logger.info(`created the starter KB 'notes' at ${root}`);
}

async function initMissingKbs(config: ServerConfig, logger: Logger): Promise<void> {
  for (const kb of config.kbs) {
    if (existsSync(join(kb.root, "data", "index.md"))) continue;
    if (!config.initMissing)
      throw new CliExit(
        EXIT_USAGE,
        `${kb.root} (${kb.source}) is not a KB (no data/index.md); create it with --init or 'cartographer kb create'`,
      );
    await initKb(kb.root, { title: kb.name });
    logger.info(`created KB '${kb.name}' at ${kb.root}`);
  }
}

async function mountAll(config: ServerConfig, logger: Logger): Promise<MountedKb[]> {
  const mounts: MountedKb[] = [];
  try {
    for (const kb of config.kbs) {
      const settings: KbSettings = {
        name: kb.name,
        root: kb.root,
        allowArtifactWrite: kb.allowArtifactWrite,
        autocommit: config.autocommit,
        ...(kb.gitAuthor ? { gitAuthor: kb.gitAuthor } : {}),
      };
      const mount = await mountKb(settings, {
        logger,
        indexRefreshMs: config.indexRefreshSeconds * 1000,
      });
      const { added, changed, removed } = mount.stats;
      logger.info(
        `mounted KB '${kb.name}' (${kb.root}); index: ${added} added, ${changed} changed, ${removed} removed`,
      );
      mounts.push(mount);
    }
  } catch (err) {
    for (const m of mounts) await closeMount(m);
    throw err;
  }
  return mounts;
}

async function runStdio(
  io: CliIo,
  config: ServerConfig,
  mounts: MountedKb[],
  audit: AuditSink | null,
  logger: Logger,
): Promise<number> {
  if (mounts.length === 0)
    throw new CliExit(EXIT_USAGE, "stdio needs at least one KB: pass --kb PATH");
  const surface = stdioSurface(mounts.map((m) => surfaceForMount(m, { audit, logger })));
  const session = await serveStdio(surface, {
    stdin: io.stdin as never,
    stdout: io.stdout as never,
    logger,
    version: VERSION,
    profile: config.toolsProfile,
  });
  const stop = onSignals(() => session.close());
  await session.closed;
  stop();
  for (const m of mounts) await closeMount(m);
  // After a signal the client may still hold stdin open; an open stdin keeps the process alive.
  (io.stdin as { destroy?: () => void }).destroy?.();
  return 0;
}

async function runHttp(
  io: CliIo,
  config: ServerConfig,
  mounts: MountedKb[],
  audit: AuditSink | null,
  auth: ReturnType<typeof buildServerAuth>,
  logger: Logger,
): Promise<number> {
  const server = await startHttpServer({
    mounts,
    toolsProfile: config.toolsProfile,
    host: config.http.host,
    port: config.http.port,
    allowedHosts: [...config.allowedHosts],
    allowedOrigins: [...config.allowedOrigins],
    corsOrigins: [...config.corsOrigins],
    maxBodyBytes: config.maxBodyBytes,
    ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
    auth: auth.compiled.enabled
      ? { tokens: auth.compiled.store, authorizationServers: auth.authorizationServers }
      : undefined,
    allowInsecureNoAuth: config.allowInsecureNoAuth,
    audit,
    logger,
    version: VERSION,
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
    onSignals(() => {
      logger.info("shutting down: finishing in-flight calls");
      server.close().then(resolve, (err) => {
        logger.error(`shutdown: ${(err as Error).message}`);
        resolve();
      });
    });
  });
  printEndpoints(io, server.url, mounts, auth.compiled.enabled, config.http.host);
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
  mounts: MountedKb[],
  authOn: boolean,
  host: string,
): void {
  const lines = [`cartographer ${VERSION} listening on ${url}`];
  if (mounts.length > 0) {
    lines.push(`  routed (all KBs):  ${url}/mcp/routed`);
    for (const m of mounts)
      lines.push(`  KB ${m.name.padEnd(14)} ${url}/mcp/${m.name}   (${m.settings.root})`);
  }
  lines.push(`  health:            ${url}/health`);
  lines.push(`  auth:              ${authLine(authOn, host)}`);
  lines.push(
    "",
    `next: connect an agent tool, e.g.  npx cartographer connect claude --server-url ${url}`,
  );
  io.stdout.write(`${lines.join("\n")}\n`);
}

/** Calls `handler` once on SIGINT or SIGTERM; returns a function that removes the listeners. */
function onSignals(handler: () => void): () => void {
  let fired = false;
  const listener = () => {
    if (fired) return;
    fired = true;
    handler();
  };
  process.on("SIGINT", listener);
  process.on("SIGTERM", listener);
  return () => {
    process.off("SIGINT", listener);
    process.off("SIGTERM", listener);
  };
}
