/**
 * The governance pages served for real: one KB (`main`, written through the real pipeline as in
 * test/console/data/gov-kb.ts) in an app with a real audit log, over HTTP on 127.0.0.1 with an
 * admin token and a NARROW one (read, map alpha, type note).
 */
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { TokenStore, tokenDigest } from "../../../src/auth/tokens.js";
import { startHttpServer } from "../../../src/http/server.js";
import { silentLogger } from "../../../src/logger.js";
import { type Cartographer, createCartographer } from "../../../src/mcp/app.js";
import { LOCAL_ADMIN } from "../../../src/mcp/context.js";
import type { MountedKb } from "../../../src/runtime/mount.js";
import { mountKb } from "../../../src/runtime/mount.js";
import { type RawResponse, raw } from "../../http/helpers.js";
import { signIn } from "../../support/console-kb.js";
import { seedKb, testKbSettings } from "../../support/kb.js";
import { principal } from "../../support/mcp-kit.js";
import { tempDir } from "../../support/temp-dir.js";

export const GOV_ADMIN_TOKEN = "gov-admin-canary-93af";
export const GOV_NARROW_TOKEN = "gov-narrow-canary-0c2d";
/** Words naming what NARROW may not see: none may reach its pages. */
export const HIDDEN = ["beta/", "beta", "in-task", "Secret Title", "secret-x", "secret-y"];

export interface GovServer {
  url: string;
  port: number;
  app: Cartographer;
  mount: MountedKb;
  auditLog: string;
  /** A tool call on `main` as the local admin (through the app's surface: audited). */
  call(name: string, args: Record<string, unknown>): Promise<string>;
  get(path: string, headers?: Record<string, string>): Promise<RawResponse>;
  post(
    path: string,
    form: Record<string, string>,
    headers?: Record<string, string>,
  ): Promise<RawResponse>;
  /** Signs in; the Cookie header value. */
  cookie(token: string): Promise<string>;
  close(): Promise<void>;
}

/** Serves `mount` (default: a fresh KB seeded with the governance fixture). */
export async function govServer(
  opts: {
    mount?: MountedKb;
    audit?: boolean;
    /**
     * Runs on the fresh KB's folder and the audit log's path before the server starts; the KB
     * is then left as it made it (no governance fixture).
     */
    beforeStart?: (kbRoot: string, auditLog: string) => Promise<void>;
  } = {},
): Promise<GovServer> {
  const tmp = tempDir("carto-gov-");
  const auditLog = join(tmp.dir, "audit", "audit.jsonl");
  let mount = opts.mount;
  if (!mount) {
    const root = join(tmp.dir, "kb");
    await seedKb(root);
    await opts.beforeStart?.(root, auditLog);
    mount = await mountKb(testKbSettings(root, { name: "main" }), { logger: silentLogger });
  }
  const app = await createCartographer({
    mounts: [mount],
    logger: silentLogger,
    ...(opts.audit === false ? {} : { auditLog: { path: auditLog, mode: "required" as const } }),
  });
  const kb = mount.name;
  const tokens = new TokenStore([
    {
      digest: tokenDigest(GOV_ADMIN_TOKEN),
      principal: { id: "admin", policy: { admin: true, rules: [] } },
    },
    {
      digest: tokenDigest(GOV_NARROW_TOKEN),
      principal: principal("narrow", [{ kb, access: "r", maps: ["alpha"], types: ["note"] }]),
    },
  ]);
  const server = await startHttpServer({ app, port: 0, version: "1", auth: { tokens } });
  const port = server.port;
  const call = async (name: string, args: Record<string, unknown>) => {
    const surface = app.surfaces.get(kb);
    if (!surface) throw new Error(`KB ${kb} is not served`);
    const r = await surface.callTool(name, args, {
      principal: LOCAL_ADMIN,
      transport: "in-memory",
      requestId: "",
    });
    const text = r.content[0]?.type === "text" ? r.content[0].text : "";
    if (r.isError) throw new Error(`${name}: ${text}`);
    return text;
  };
  const s: GovServer = {
    url: server.url,
    port,
    app,
    mount,
    auditLog,
    call,
    get: (path, headers = {}) => raw(port, { method: "GET", path, headers }),
    post: (path, form, headers = {}) =>
      raw(port, {
        method: "POST",
        path,
        headers: {
          "Content-Type": "application/x-www-form-urlencoded",
          Origin: `http://127.0.0.1:${port}`,
          ...headers,
        },
        body: new URLSearchParams(form).toString(),
      }),
    cookie: (token) => signIn(s as never, token),
    close: async () => {
      await server.close();
      await app.close();
      tmp.cleanup();
    },
  };
  if (!opts.mount && !opts.beforeStart) await seedGov(s);
  return s;
}

const note = (id: string, type: string, title: string) => ({
  op: "write",
  id,
  frontmatter: { type, title },
  body: "x\n",
});

/** Maps alpha and beta; visible, hidden and mixed commits (as the data fixture). */
export async function seedGov(s: Pick<GovServer, "call">): Promise<void> {
  await s.call("map_create", { name: "alpha", kind: "map" });
  await s.call("map_create", { name: "beta", kind: "map" });
  await s.call("concept_write", {
    id: "alpha/public",
    frontmatter: { type: "note", title: "Public note" },
    body: "visible <b>body</b>\n",
  });
  await s.call("concept_write", {
    id: "beta/secret-x",
    frontmatter: { type: "note", title: "Secret Title" },
    body: "hidden body\n",
  });
  await s.call("concept_write", {
    id: "alpha/in-task",
    frontmatter: { type: "task", title: "Secret Title task" },
    body: "hidden task\n",
  });
  await s.call("concept_batch", {
    operations: [
      note("alpha/mixed-visible", "note", "Mixed public"),
      note("beta/secret-y", "note", "Secret Title y"),
    ],
  });
}

/** A governance server and both viewers' session cookies, as one test file uses them. */
export interface GovSessions {
  s: GovServer;
  admin: string;
  narrow: string;
}

/**
 * Starts a governance server before the file's tests, signs in the admin and the narrow viewer,
 * hands the three to `take`, and closes the server after the file.
 */
export function onGovServer(take: (sessions: GovSessions) => void): void {
  let server: GovServer | undefined;
  beforeAll(async () => {
    server = await govServer();
    take({
      s: server,
      admin: await server.cookie(GOV_ADMIN_TOKEN),
      narrow: await server.cookie(GOV_NARROW_TOKEN),
    });
  }, 60_000);
  afterAll(async () => server?.close());
}
