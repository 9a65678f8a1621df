/**
 * Go scenario 14_rbac_visibility: two KBs, auth on with `admin, a|kb:<A>:r`; plain JSON POSTs
 * with a bearer to `/mcp?kb=<name>`. The A-scoped token searches, lists and overviews A (without
 * B's concept surfacing), is `forbidden` on B's collection tools, gets exactly `not found` for
 * B's concept (nothing of its title leaks), and its write to B is `not found` and changes
 * nothing; the admin token keeps full visibility of both KBs.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, GIT_ENV, type RunningServer, startServer, tempDir } from "../helpers.js";
import { plainCall, textOf } from "./plain-mcp.js";

const A = "14_rbac_visibility-kba";
const B = "14_rbac_visibility-kbb";
const ADMIN = "admin-e2e14";
const A_TOKEN = "a-e2e14";
const sandbox = tempDir("carto-go14-");
let server: RunningServer | undefined;
const call = (kb: string, token: string, name: string, args: Record<string, unknown> = {}) =>
  plainCall(`${server?.url}/mcp?kb=${kb}`, name, args, token);
const note = (id: string, title: string) => ({
  id,
  frontmatter: { type: "Note", title },
  body: `# ${title}\nbody text`,
});
type Result = Awaited<ReturnType<typeof call>>;
const succeeds = (r: Result) => expect(r.isError, textOf(r)).toBeFalsy();
const refused = (r: Result, text: string) => {
  expect(r.isError).toBe(true);
  expect(textOf(r)).toBe(text);
};

beforeAll(async () => {
  mkdirSync(join(sandbox.dir, A));
  mkdirSync(join(sandbox.dir, B));
  server = await startServer(["--kb", `${A},${B}`, "--init", "--http", "127.0.0.1:0"], {
    cwd: sandbox.dir,
    env: cleanEnv({
      ...GIT_ENV,
      CARTOGRAPHER_AUTH: "true",
      CARTOGRAPHER_TOKENS: `${ADMIN}, ${A_TOKEN}|kb:${A}:r`,
    }),
  });
  succeeds(await call(A, ADMIN, "concept_write", note("notes/hello-a", "Hello A")));
  succeeds(await call(B, ADMIN, "concept_write", note("notes/hello-b", "Hello B")));
}, 60_000);
afterAll(async () => {
  await server?.stop();
  sandbox.cleanup();
});

describe("Go scenario 14_rbac_visibility", () => {
  it("the scoped token sees its own KB, and nothing of the other surfaces there", async () => {
    const found = await call(A, A_TOKEN, "search", { query: "Hello" });
    succeeds(found);
    expect(textOf(found)).not.toContain("hello-b");
    succeeds(await call(A, A_TOKEN, "concept_list"));
    succeeds(await call(A, A_TOKEN, "atlas_overview"));
  });

  it("the other KB's collection tools are exactly forbidden", async () => {
    refused(await call(B, A_TOKEN, "search", { query: "Hello" }), "forbidden");
    refused(await call(B, A_TOKEN, "concept_list"), "forbidden");
    refused(await call(B, A_TOKEN, "atlas_overview"), "forbidden");
  });

  it("a concept outside the perimeter is exactly `not found`; a write to it is refused and changes nothing", async () => {
    const read = await call(B, A_TOKEN, "concept_read", { id: "notes/hello-b" });
    refused(read, "not found");
    expect(JSON.stringify(read)).not.toContain("Hello B");
    refused(await call(B, A_TOKEN, "concept_write", note("notes/hello-b", "Hacked")), "not found");
    const after = await call(B, ADMIN, "concept_read", { id: "notes/hello-b" });
    succeeds(after);
    expect(textOf(after)).toContain("Hello B");
    expect(textOf(after)).not.toContain("Hacked");
  });

  it("the admin token keeps full visibility of both KBs", async () => {
    succeeds(await call(A, ADMIN, "search", { query: "Hello" }));
    succeeds(await call(B, ADMIN, "search", { query: "Hello" }));
    succeeds(await call(A, ADMIN, "concept_read", { id: "notes/hello-a" }));
    succeeds(await call(B, ADMIN, "concept_read", { id: "notes/hello-b" }));
  });
});
