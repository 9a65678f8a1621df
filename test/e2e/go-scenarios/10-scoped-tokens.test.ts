/**
 * Go scenario 10_scoped_tokens: two KBs (`serve --kb A,B --init`), auth on with
 * CARTOGRAPHER_TOKENS `admin, rw|kb:<A>:rw, r|kb:<A>:r`; plain JSON POSTs with a bearer to
 * `/mcp?kb=<name>`. Admin reads and writes both; the r token reads A (tools/call and tools/list)
 * and is `forbidden` to write; rw reads and writes A; both are `forbidden` on B. The KB folders
 * are named with capitals (`…-kbA`): names keep their case, in `?kb=` and in scopes, as in Go.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, GIT_ENV, type RunningServer, startServer, tempDir } from "../helpers.js";
import { plainCall, plainPost, textOf } from "./plain-mcp.js";

const A = "10_scoped_tokens-kbA";
const B = "10_scoped_tokens-kbB";
const ADMIN = "admin-e2e";
const RW = "rw-e2e";
const R = "r-e2e";
const sandbox = tempDir("carto-go10-");
let server: RunningServer | undefined;
const at = (kb: string) => `${server?.url}/mcp?kb=${kb}`;

beforeAll(async () => {
  mkdirSync(join(sandbox.dir, A));
  mkdirSync(join(sandbox.dir, B));
  server = await startServer(["--kb", `${A},${B}`, "--init", "--http", "127.0.0.1:0"], {
    cwd: sandbox.dir,
    env: cleanEnv({
      ...GIT_ENV,
      CARTOGRAPHER_AUTH: "true",
      CARTOGRAPHER_TOKENS: `${ADMIN}, ${RW}|kb:${A}:rw, ${R}|kb:${A}:r`,
    }),
  });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  sandbox.cleanup();
});

const read = (kb: string, token: string) => plainCall(at(kb), "atlas_overview", {}, token);
const write = (kb: string, token: string, name: string) =>
  plainCall(at(kb), "map_create", { name: `scope-${name}`, title: `Scope ${name}` }, token);
const succeeds = (r: Awaited<ReturnType<typeof read>>) => expect(r.isError, textOf(r)).toBeFalsy();
const forbidden = (r: Awaited<ReturnType<typeof read>>) => {
  expect(r.isError).toBe(true);
  expect(textOf(r)).toBe("forbidden");
};

describe("Go scenario 10_scoped_tokens", () => {
  it("admin: full access to both KBs", async () => {
    succeeds(await read(A, ADMIN));
    succeeds(await write(A, ADMIN, "admin"));
    succeeds(await read(B, ADMIN));
  });

  it("kb:<A>:r reads A (tools/call, tools/list) and may not write it", async () => {
    succeeds(await read(A, R));
    const list = await plainPost(
      at(A),
      { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
      R,
    );
    expect(list.status).toBe(200);
    expect(list.body?.error).toBeUndefined();
    forbidden(await write(A, R, "rtok"));
  });

  it("kb:<A>:rw reads and writes A; neither scoped token reaches B", async () => {
    succeeds(await read(A, RW));
    succeeds(await write(A, RW, "rwtok"));
    forbidden(await read(B, RW));
    forbidden(await read(B, R));
  });
});
