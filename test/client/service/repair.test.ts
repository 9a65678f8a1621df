/**
 * The service step of upgrade-repair against a real /health on 127.0.0.1. The service manager
 * (systemd/launchd, tested in manager*.test.ts through their command lines) is replaced by a
 * recorder whose restart() makes the health server answer with the new version, as a restarted
 * service would.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { ServiceManager, ServiceState } from "../../../src/client/service/manager.js";
import { repairService } from "../../../src/client/service/repair.js";

interface Fake {
  manager: ServiceManager;
  restarts: number;
  version: string;
}

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function fakeService(
  state: Pick<ServiceState, "installed" | "running">,
  version: string,
  next: string,
): Promise<Fake> {
  const fake = { restarts: 0, version } as Fake;
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ status: "ok", version: fake.version, ready: true, kbs: [] }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  servers.push(server);
  const port = (server.address() as AddressInfo).port;
  const refuse = async () => {
    throw new Error("not expected");
  };
  fake.manager = {
    install: refuse,
    uninstall: refuse,
    start: refuse,
    stop: refuse,
    restart: async () => {
      fake.restarts++;
      fake.version = next;
    },
    state: async () => ({ file: "/unit", http: `127.0.0.1:${port}`, ...state }),
  };
  return fake;
}

describe("repairService", () => {
  it("an outdated running service is restarted and waited for until it serves this version", async () => {
    const f = await fakeService({ installed: true, running: true }, "1.0.0", "2.0.0");
    const r = await repairService({ manager: f.manager, version: "2.0.0", timeoutMs: 5000 }, false);
    expect(r.state).toBe("restarted");
    expect(r.message).toMatch(/was version 1\.0\.0.*serves 2\.0\.0/);
    expect(f.restarts).toBe(1);
  });

  it("a service already on this version is not restarted (no second drain); dry run restarts nothing", async () => {
    const current = await fakeService({ installed: true, running: true }, "2.0.0", "x");
    const same = await repairService(
      { manager: current.manager, version: "2.0.0", timeoutMs: 1000 },
      false,
    );
    expect(same.state).toBe("current");
    expect(current.restarts).toBe(0);
    const old = await fakeService({ installed: true, running: true }, "1.0.0", "2.0.0");
    const dry = await repairService(
      { manager: old.manager, version: "2.0.0", timeoutMs: 1000 },
      true,
    );
    expect(dry.state).toBe("would-restart");
    expect(old.restarts).toBe(0);
  });

  it("stopped stays stopped; not installed is nothing to do", async () => {
    const stopped = await fakeService({ installed: true, running: false }, "1.0.0", "2.0.0");
    expect(
      (await repairService({ manager: stopped.manager, version: "2.0.0", timeoutMs: 1000 }, false))
        .state,
    ).toBe("stopped");
    expect(stopped.restarts).toBe(0);
    const none = await fakeService({ installed: false, running: false }, "1.0.0", "2.0.0");
    expect(
      (await repairService({ manager: none.manager, version: "2.0.0", timeoutMs: 1000 }, false))
        .state,
    ).toBe("not-installed");
  });

  it("a restarted service that keeps the old version fails, saying what it saw", async () => {
    const stuck = await fakeService({ installed: true, running: true }, "1.0.0", "1.0.0");
    const r = await repairService(
      { manager: stuck.manager, version: "2.0.0", timeoutMs: 600 },
      false,
    );
    expect(r.state).toBe("failed");
    expect(r.message).toContain("did not report version 2.0.0");
    expect(r.message).toContain("it reports version 1.0.0");
  });
});
