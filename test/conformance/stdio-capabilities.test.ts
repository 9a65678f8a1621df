/**
 * Resources, prompts, completions and notifications over real stdio: the built `cartographer serve`
 * with two KBs (routed surface) driven by the SDK Client through StdioClientTransport — resources
 * of both KBs with the KB in the URI, a prompt with the `kb` argument, completion of KB names and
 * ids, and after a write the resources/list_changed and updated notifications a live session
 * receives.
 */
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, cleanEnv, GIT_ENV, runBin, tempDir } from "../e2e/helpers.js";

let tmp: { dir: string; cleanup: () => void };
let client: Client;
const notes: { method: string; params: unknown }[] = [];

beforeAll(async () => {
  tmp = tempDir("carto-stdio-caps-");
  const env = cleanEnv(GIT_ENV);
  for (const n of ["one", "two"])
    expect((await runBin(["kb", "create", n, "--data", "kbs"], { cwd: tmp.dir, env })).code).toBe(
      0,
    );
  client = new Client({ name: "stdio-caps", version: "1.0.0" });
  client.setNotificationHandler(ResourceListChangedNotificationSchema, (n) => {
    notes.push({ method: n.method, params: n.params });
  });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    notes.push({ method: n.method, params: n.params });
  });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "serve", "--kb", join("kbs", "one"), "--kb", join("kbs", "two")],
      cwd: tmp.dir,
      env: env as Record<string, string>,
      stderr: "pipe",
    }),
  );
}, 60_000);
afterAll(async () => {
  await client?.close();
  tmp?.cleanup();
});

describe("capabilities over stdio (built binary, routed over two KBs)", () => {
  it("declares subscribe and listChanged; lists and reads both KBs' resources", async () => {
    expect(client.getServerCapabilities()?.resources).toEqual({
      subscribe: true,
      listChanged: true,
    });
    await client.callTool({
      name: "concept_write",
      arguments: {
        kb: "two",
        id: "notes/first",
        frontmatter: { type: "note" },
        body: "hello two\n",
      },
    });
    // One page per KB here (the cursor moves on to the next bound KB).
    const uris: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listResources(cursor === undefined ? {} : { cursor });
      uris.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
    } while (cursor !== undefined && uris.length < 1000);
    expect(uris).toContain("cartographer://one/~index");
    expect(uris).toContain("cartographer://two/notes/first");
    const read = await client.readResource({ uri: "cartographer://two/notes/first" });
    expect(read.contents[0]).toMatchObject({ mimeType: "text/markdown" });
    expect(JSON.stringify(read.contents)).toContain("hello two");
  });

  it("completes KB names and ids; the bundled skill is a prompt taking kb", async () => {
    const ref = { type: "ref/resource" as const, uri: "cartographer://{kb}/{+id}" };
    const kbNames = await client.complete({ ref, argument: { name: "kb", value: "t" } });
    expect(kbNames.completion.values).toEqual(["two"]);
    const ids = await client.complete({
      ref,
      argument: { name: "id", value: "notes/f" },
      context: { arguments: { kb: "two" } },
    });
    expect(ids.completion.values).toEqual(["notes/first"]);
    const prompt = (await client.listPrompts()).prompts.find(
      (p) => p.name === "cartographer-kb-loop",
    );
    expect(prompt?.arguments?.[0]).toMatchObject({ name: "kb", required: true });
  });

  it("a subscribed concept is reported updated after a write, with list_changed", async () => {
    const uri = "cartographer://one/notes/watched";
    await client.subscribeResource({ uri });
    notes.length = 0;
    await client.callTool({
      name: "concept_write",
      arguments: { kb: "one", id: "notes/watched", frontmatter: { type: "note" }, body: "v1\n" },
    });
    for (let i = 0; i < 100 && notes.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(notes).toEqual([
      { method: "notifications/resources/list_changed", params: undefined },
      { method: "notifications/resources/updated", params: { uri } },
    ]);
  });
});
