/**
 * A real KB for console tests: maps `public` and `secret` (a narrow reader sees only `public`),
 * concepts linking across them, an image asset; served over HTTP on 127.0.0.1 with static
 * tokens (admin, narrow reader) or with auth off.
 */
import { join } from "node:path";
import { TokenStore, tokenDigest } from "../../src/auth/tokens.js";
import { silentLogger } from "../../src/logger.js";
import type { Cartographer } from "../../src/mcp/app.js";
import { closeMount, type MountedKb, mountKb } from "../../src/runtime/mount.js";
import { type RawResponse, raw, serveMounts } from "../http/helpers.js";
import { seedKb, testKbSettings } from "./kb.js";
import { principal } from "./mcp-kit.js";
import { tempDir } from "./temp-dir.js";

export const ADMIN_TOKEN = "console-admin-canary-7d1e";
export const NARROW_TOKEN = "console-narrow-canary-41b9";

/** A 1×1 transparent PNG. */
export const PNG_1PX = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

export const CONSOLE_FILES: Record<string, string> = {
  "data/public/_map.md": "---\ntype: Map\ntitle: Public notes\nkind: map\n---\n# Public notes\n",
  "data/secret/_map.md": "---\ntype: Map\ntitle: Secret notes\nkind: map\n---\n# Secret notes\n",
  "data/public/welcome.md":
    "---\ntype: note\ntitle: Welcome page\n---\n# Welcome\n\nSee [[public/second|the second]] and [[secret/plans]].\n\n![diagram](../assets/dot.png)\n",
  "data/public/second.md":
    "---\ntype: note\ntitle: Second page\n---\nBack to [welcome](welcome.md).\n",
  "data/secret/plans.md":
    "---\ntype: note\ntitle: Covert zeppelin plans\n---\nLinks to [[public/welcome]].\n",
  "data/assets/dot.png": PNG_1PX.toString("latin1"),
};

export interface ConsoleServer {
  url: string;
  port: number;
  mount: MountedKb;
  /** The composition root behind the server (for a second core over the same KB). */
  app: Cartographer;
  get(path: string, headers?: Record<string, string>): Promise<RawResponse>;
  /** GET with the body as bytes (images). */
  getBytes(
    path: string,
    headers?: Record<string, string>,
  ): Promise<{
    status: number;
    headers: Record<string, string | string[] | undefined>;
    bytes: Buffer;
  }>;
  post(
    path: string,
    form: Record<string, string>,
    headers?: Record<string, string>,
  ): Promise<RawResponse>;
  close(): Promise<void>;
}

/** A console over one KB named `kb`, with `files` (default CONSOLE_FILES); auth on unless `authOff`. */
export async function consoleServer(
  opts: {
    authOff?: boolean;
    files?: Record<string, string>;
    name?: string;
    sessions?: { idleMs?: number; absoluteMs?: number };
  } = {},
): Promise<ConsoleServer> {
  const tmp = tempDir("carto-console-");
  const root = join(tmp.dir, "kb");
  const files = opts.files ?? CONSOLE_FILES;
  await seedKb(root, {});
  // Binary files are written as latin1 strings by seedKb's writeFile: write them as bytes.
  const { commitFiles } = await import("./kb.js");
  const { writeFile, mkdir } = await import("node:fs/promises");
  const { dirname } = await import("node:path");
  const text: Record<string, string> = {};
  for (const [p, v] of Object.entries(files)) {
    if (p.endsWith(".png")) {
      await mkdir(dirname(join(root, p)), { recursive: true });
      await writeFile(join(root, p), Buffer.from(v, "latin1"));
    } else text[p] = v;
  }
  await commitFiles(root, text, "console fixture");
  const mount = await mountKb(testKbSettings(root, { name: opts.name ?? "kb" }), {
    logger: silentLogger,
  });
  const kb = mount.name;
  const tokens = new TokenStore([
    {
      digest: tokenDigest(ADMIN_TOKEN),
      principal: { id: "admin", policy: { admin: true, rules: [] } },
    },
    {
      digest: tokenDigest(NARROW_TOKEN),
      principal: principal("narrow", [{ kb, access: "r", maps: ["public"] }]),
    },
  ]);
  const server = await serveMounts([mount], {
    ...(opts.authOff ? {} : { auth: { tokens } }),
    ...(opts.sessions ? { consoleSessions: opts.sessions } : {}),
  });
  const port = server.port;
  return {
    url: server.url,
    port,
    mount,
    app: server.app,
    get: (path, headers = {}) => raw(port, { method: "GET", path, headers }),
    getBytes: async (path, headers = {}) => {
      const r = await fetch(`http://127.0.0.1:${port}${path}`, {
        headers,
        signal: AbortSignal.timeout(10_000),
      });
      const h: Record<string, string> = {};
      r.headers.forEach((v, k) => {
        h[k] = v;
      });
      return { status: r.status, headers: h, bytes: Buffer.from(await r.arrayBuffer()) };
    },
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
    close: async () => {
      await server.close();
      await closeMount(mount).catch(() => {});
      tmp.cleanup();
    },
  };
}

/** The session cookie (`name=value`) a sign-in answer sets. */
export function sessionOf(r: RawResponse): string {
  const set = r.headers["set-cookie"];
  const first = Array.isArray(set) ? set[0] : set;
  if (first === undefined) throw new Error(`no Set-Cookie (status ${r.status})`);
  return first.split(";")[0] as string;
}

/** The value of hidden field `name` in an HTML page. */
export function hiddenField(html: string, name: string): string {
  const m = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (m === null) throw new Error(`no hidden field ${name}`);
  return m[1] as string;
}

/** Signs in with `token`; returns the `Cookie` header value. */
export async function signIn(s: ConsoleServer, token: string): Promise<string> {
  const form = await s.get("/console/signin");
  const csrf = hiddenField(form.body, "_csrf");
  const r = await s.post("/console/signin", { _csrf: csrf, token, next: "/" });
  if (r.status !== 303) throw new Error(`sign-in answered ${r.status}`);
  return sessionOf(r);
}
