/**
 * Shared fixture for the authorization end-to-end tests: two real KBs (`main` with artifact
 * writes enabled, `other`), content placed so a narrow role sees some of it, a real HTTP server
 * with compiled tokens, and SDK clients per principal × endpoint.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { compileAuth } from "../../src/auth/tokens.js";
import { type HttpServerHandle, startHttpServer } from "../../src/http/server.js";
import { memoryLogger } from "../../src/logger.js";
import { createCartographer } from "../../src/mcp/app.js";
import type { MountedKb } from "../../src/runtime/mount.js";
import { allTools } from "../../src/tools/registry.js";
import { callTool } from "./call-tool.js";
import { type TempMounts, tempMounts } from "./mcp-kit.js";

/** Token values (test-only) and the principals they stand for. */
export const TOKENS = {
  admin: "authz-admin-token",
  r: "authz-read-token",
  rw: "authz-write-token",
  role: "authz-role-token",
  other: "authz-other-token",
} as const;
export type Who = keyof typeof TOKENS | "none";
export const PRINCIPALS: readonly Who[] = ["admin", "r", "rw", "role", "other", "none"];

/** The role: read-write on map `alpha`, type `note` only. */
export const ROLE = {
  name: "alpha-notes",
  rules: [{ kb: "main", access: "rw" as const, maps: ["alpha"], types: ["note"] }],
};

export const IN = "alpha/in-note"; // visible to the role (map alpha, type note)
export const IN_TASK = "alpha/in-task"; // map alpha, type task: outside the role by type
export const OUT = "beta/out-note"; // map beta: outside the role by map
export const STALE = "0".repeat(64);

export async function run(mount: MountedKb, name: string, args: Record<string, unknown>) {
  const spec = allTools().find((s) => s.name === name);
  if (!spec) throw new Error(`no tool ${name}`);
  return callTool(mount.runtime, spec, args);
}

/** Maps alpha and beta, three concepts, one asset per map (written as admin, no server). */
export async function seedMain(main: MountedKb): Promise<void> {
  await run(main, "map_create", { name: "alpha", kind: "map" });
  await run(main, "map_create", { name: "beta", kind: "map" });
  const concept = (id: string, type: string) =>
    run(main, "concept_write", {
      id,
      frontmatter: { type, title: `${id} title` },
      body: `Body of ${id}, links [[${IN}]].\n`,
    });
  await concept(IN, "note");
  await concept(IN_TASK, "task");
  await concept(OUT, "note");
  await run(main, "asset_write", { path: "alpha/pic.bin", content_base64: "AAAA" });
  await run(main, "asset_write", { path: "beta/pic.bin", content_base64: "AAAA" });
}

export interface AuthzServer {
  kbs: TempMounts;
  server: HttpServerHandle;
  logger: ReturnType<typeof memoryLogger>;
  close: () => Promise<void>;
}

export async function startAuthzServer(
  seed: (main: MountedKb) => Promise<void> = seedMain,
): Promise<AuthzServer> {
  const kbs = await tempMounts(["main", "other"], { artifacts: ["main"] });
  await seed(kbs.byName.main as MountedKb);
  const auth = compileAuth({
    mode: true,
    roles: [ROLE],
    tokens: [
      { token: TOKENS.admin, id: "admin" },
      { token: TOKENS.r, id: "reader", scopes: ["kb:main:r"] },
      { token: TOKENS.rw, id: "writer", scopes: ["kb:main:rw"] },
      { token: TOKENS.role, id: "role", roles: [ROLE.name] },
      { token: TOKENS.other, id: "other", scopes: ["kb:other:rw"] },
    ],
  });
  const logger = memoryLogger();
  const server = await startHttpServer({
    app: await createCartographer({ mounts: kbs.mounts, logger }),
    port: 0,
    version: "test",
    toolsProfile: "full",
    auth: { tokens: auth.store },
  });
  return {
    kbs,
    server,
    logger,
    close: async () => {
      await server.close();
      await kbs.cleanup();
    },
  };
}

export async function connect(url: string, path: string, who: Who): Promise<Client> {
  const c = new Client({ name: `authz-${who}`, version: "1" });
  const headers: Record<string, string> =
    who === "none" ? {} : { Authorization: `Bearer ${TOKENS[who]}` };
  await c.connect(
    new StreamableHTTPClientTransport(new URL(`${url}${path}`), { requestInit: { headers } }),
  );
  return c;
}

/** The text of a tool result and whether it is an error. */
export function outcome(result: unknown): { text: string; isError: boolean } {
  const r = result as { content?: { text?: string }[]; isError?: boolean };
  return { text: r.content?.[0]?.text ?? "", isError: r.isError === true };
}
