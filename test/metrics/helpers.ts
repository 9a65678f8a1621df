/**
 * A real HTTP server on 127.0.0.1 with metrics, composed as `serve` does (one ServerMetrics for
 * the app and the HTTP server), the official SDK client on it, and a parser of the scrape.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { AuditSink } from "../../src/audit/types.js";
import { startHttpServer } from "../../src/http/server.js";
import type { Logger } from "../../src/logger.js";
import { createCartographer } from "../../src/mcp/app.js";
import { ServerMetrics } from "../../src/metrics/server-metrics.js";
import type { MountedKb } from "../../src/runtime/mount.js";

export interface MeteredServer {
  url: string;
  port: number;
  metrics: ServerMetrics;
  close(): Promise<void>;
}

export async function serveMetered(
  mounts: readonly MountedKb[],
  opts: { logger: Logger; audit?: AuditSink; token?: string | null; metrics?: boolean },
): Promise<MeteredServer> {
  const metrics = new ServerMetrics();
  const on = opts.metrics ?? true;
  const app = await createCartographer({
    mounts,
    logger: opts.logger,
    ...(opts.audit ? { audit: opts.audit } : {}),
    ...(on ? { metrics } : {}),
  });
  const server = await startHttpServer({
    app,
    port: 0,
    version: "1",
    ...(on ? { metrics: { metrics, token: opts.token ?? null } } : {}),
  });
  return {
    url: server.url,
    port: server.port,
    metrics,
    close: () => server.close().then(() => app.close()),
  };
}

export async function sdkClient(url: string): Promise<Client> {
  const client = new Client({ name: "metrics-test", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (comments skipped). */
export function parseScrape(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[3] ?? "").matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g))
      labels[key as string] = (value as string).replace(/\\(.)/g, (_, c: string) =>
        c === "n" ? "\n" : c,
      );
    samples.push({ name: match[1] as string, labels, value: Number(match[4]) });
  }
  return samples;
}

/** The value of the one sample named `name` whose labels include `labels` (0 when none). */
export function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}) {
  const hits = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  return hits.reduce((n, s) => n + s.value, 0);
}

/** A logger that keeps every line (to check that no secret is ever logged). */
export function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => lines.push(m),
    warn: (m) => lines.push(m),
    error: (m) => lines.push(m),
  };
}
