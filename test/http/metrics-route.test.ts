/**
 * Who may scrape (docs/decisions.md "Metrics: own token or loopback only"): off by default (404),
 * the metrics token as a bearer when one is configured, loopback peers only without one; the
 * token is never logged nor echoed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpCore } from "../../src/http/core.js";
import { requestOf } from "../../src/http/exchange.js";
import { silentLogger } from "../../src/logger.js";
import { createCartographer } from "../../src/mcp/app.js";
import { ServerMetrics } from "../../src/metrics/server-metrics.js";
import {
  type MeteredServer,
  recordingLogger,
  sdkClient,
  serveMetered,
} from "../metrics/helpers.js";
import { tempMounts } from "../support/mcp-kit.js";
import { raw } from "./helpers.js";

const TOKEN = "metrics-tok-7Qz9-unique";

/** Closing a server closes the mounts it adopted: each server gets its own. */
async function served(opts: Parameters<typeof serveMetered>[1]) {
  const kbs = await tempMounts(["alpha"]);
  const server = await serveMetered(kbs.mounts, opts);
  return { ...server, close: () => server.close().then(() => kbs.cleanup()) };
}

describe("GET /metrics access", () => {
  it("is off by default: 404 like any unknown path", async () => {
    const server = await served({ logger: silentLogger, metrics: false });
    try {
      const r = await raw(server.port, { method: "GET", path: "/metrics" });
      expect(r.status).toBe(404);
      expect(r.body).not.toContain("cartographer_");
    } finally {
      await server.close();
    }
  });

  describe("with a metrics token", () => {
    let server: MeteredServer;
    const logger = recordingLogger();
    beforeAll(async () => {
      server = await served({ logger, token: TOKEN });
    });
    afterAll(async () => {
      await server.close();
    });

    it("refuses a scrape without it or with another bearer (401), even from loopback", async () => {
      for (const headers of [
        {},
        { Authorization: "Bearer nope" },
        { Authorization: `Bearer ${TOKEN}x` },
        { Authorization: `Basic ${TOKEN}` },
      ] as Record<string, string>[]) {
        const r = await raw(server.port, { method: "GET", path: "/metrics", headers });
        expect(r.status).toBe(401);
        expect(r.headers["www-authenticate"]).toBe("Bearer");
        expect(r.body).not.toContain(TOKEN);
        expect(r.body).not.toContain("cartographer_tool");
      }
    });

    it("answers the scrape that sends it", async () => {
      const client = await sdkClient(`${server.url}/mcp/alpha`);
      await client.callTool({ name: "kb_status", arguments: {} });
      await client.close();
      const r = await raw(server.port, {
        method: "GET",
        path: "/metrics",
        headers: { Authorization: `Bearer ${TOKEN}` },
      });
      expect(r.status).toBe(200);
      expect(r.body).toContain('cartographer_tool_calls_total{tool="kb_status",kb="alpha"');
      expect(r.body).not.toContain(TOKEN);
    });

    it("never logs the token", () => {
      expect(logger.lines.join("\n")).not.toContain(TOKEN);
    });
  });

  describe("without a token: loopback peers only", () => {
    const scrape = async (remoteAddress: string | undefined) => {
      const app = await createCartographer({ mounts: [], logger: silentLogger });
      const core = createHttpCore({
        app,
        version: "1",
        metrics: { metrics: new ServerMetrics(), token: null },
      });
      const req = requestOf("GET", "/metrics", { Host: "127.0.0.1:39273" });
      const reply = await core.handle(remoteAddress ? { ...req, remoteAddress } : req);
      await app.close();
      return reply?.status;
    };

    it("answers 127.0.0.0/8, ::1 and IPv4-mapped loopback", async () => {
      for (const peer of ["127.0.0.1", "127.3.4.5", "::1", "::ffff:127.0.0.1"])
        expect(await scrape(peer)).toBe(200);
    });

    it("refuses any other peer, or an unknown one (403)", async () => {
      for (const peer of ["10.0.0.7", "192.168.1.2", "::ffff:10.0.0.7", "fe80::1", undefined])
        expect(await scrape(peer)).toBe(403);
    });
  });
});
