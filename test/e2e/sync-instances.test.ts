/**
 * Three server processes over one git remote (docs/sync.md "Several instances"; the test that
 * matters): a bare repository, three clones, three `cartographer serve` on their own ports, driven
 * concurrently through the SDK client. Every acknowledged write ends on the remote as exactly one
 * commit and in all three indexes within in_window + one poll; one concept edited on two instances
 * is never silently lost; a human push reaches all three; writes land locally while the remote is
 * away and drain when it returns; a SIGKILL mid-burst loses nothing acknowledged.
 */
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bareRemote, gitSync, type Remote } from "../support/sync-remote.js";
import { cleanEnv, type RunningServer, startServer } from "./helpers.js";

const ENV = cleanEnv({
  CARTOGRAPHER_SYNC_IN_WINDOW: "1",
  CARTOGRAPHER_SYNC_OUT_DEBOUNCE: "200ms",
  CARTOGRAPHER_GIT_POLL_SECONDS: "1",
  CARTOGRAPHER_INDEX_REFRESH_SECONDS: "0",
});

interface Node {
  name: string;
  root: string;
  server: RunningServer;
  client: Client;
}

let remote: Remote;
const nodes: Node[] = [];

async function startNode(name: string, root: string): Promise<Node> {
  const server = await startServer(["--http", "127.0.0.1:0", "--kb", root], {
    cwd: remote.dir,
    env: ENV,
  });
  const client = new Client({ name: `e2e-${name}`, version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
  return { name, root, server, client };
}

const call = async (n: Node, name: string, args: Record<string, unknown>) =>
  (await n.client.callTool({ name, arguments: args })) as CallToolResult;
const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;
const json = (r: CallToolResult) => JSON.parse(text(r)) as Record<string, unknown>;
const write = (n: Node, id: string, body: string) =>
  call(n, "concept_write", { id, frontmatter: { type: "note", title: id }, body });
const remoteSubjects = () => gitSync(remote.bare, "log", "--format=%s", "main").split("\n");
const searchTotal = async (n: Node, query: string) =>
  (json(await call(n, "search", { query, limit: 50 })).results as unknown[]).length;

beforeAll(async () => {
  remote = await bareRemote();
  for (const name of ["a", "b", "c"]) {
    const root = join(remote.dir, name);
    gitSync(remote.dir, "clone", "-q", remote.bare, root);
    gitSync(root, "config", "user.name", `instance ${name}`);
    gitSync(root, "config", "user.email", `${name}@e2e.invalid`);
    nodes.push(await startNode(name, root));
  }
  await call(nodes[0] as Node, "map_create", { name: "e2e", kind: "map" });
}, 60_000);

afterAll(async () => {
  for (const n of nodes) {
    await n.client.close().catch(() => {});
    await n.server.stop();
  }
  await remote?.cleanup();
});

describe("three instances over one remote", () => {
  it("distinct concepts from all three: each on the remote once, found by all three", async () => {
    const [a, b, c] = nodes as [Node, Node, Node];
    const jobs: Promise<[string, CallToolResult]>[] = [];
    for (const n of [a, b, c])
      for (let w = 0; w < 4; w++)
        for (let k = 0; k < 3; k++) {
          const id = `e2e/${n.name}-${w}-${k}`;
          jobs.push(write(n, id, `convergeword ${id}\n`).then((r) => [id, r]));
        }
    const results = await Promise.all(jobs);
    const acked = results.filter(([, r]) => !r.isError).map(([id]) => id);
    expect(acked.length, results.map(([, r]) => text(r)).join("\n")).toBe(36);
    for (const n of nodes) expect(json(await call(n, "sync_status", {})).unpushed).toBe(0);
    const subjects = remoteSubjects();
    for (const id of acked)
      expect(
        subjects.filter((s) => s === `concept_write: ${id}`),
        id,
      ).toHaveLength(1);
    const started = Date.now();
    for (const n of nodes)
      await expect.poll(() => searchTotal(n, "convergeword"), { timeout: 5_000 }).toBe(36);
    expect(Date.now() - started).toBeLessThan(5_000);
  }, 60_000);

  it("the same concept edited on two instances: one wins cleanly or a conflict is registered", async () => {
    const [a, b] = nodes as [Node, Node];
    await write(a, "e2e/shared", "base\n");
    await call(b, "kb_status", {});
    const [ra, rb] = await Promise.all([
      write(a, "e2e/shared", "from a\n"),
      write(b, "e2e/shared", "from b\n"),
    ]);
    for (const n of [a, b]) await call(n, "sync_status", {});
    const history = gitSync(remote.bare, "log", "-p", "main", "--", "data/e2e/shared.md");
    const conflicts = (n: Node) =>
      call(n, "conflicts_list", {}).then((r) => json(r).total as number);
    for (const [n, r, body] of [
      [a, ra, "from a"],
      [b, rb, "from b"],
    ] as const) {
      if (r.isError) continue; // refused: nothing acknowledged
      // Acknowledged: on the remote, or kept in a registered conflict (never silently lost).
      expect(history.includes(body) || (await conflicts(n)) > 0, `${n.name}: ${text(r)}`).toBe(
        true,
      );
    }
    // A registered conflict is resolved through the tool: one merge commit, pushed.
    for (const n of [a, b]) {
      const open = json(await call(n, "conflicts_list", {})).conflicts as { concept_id: string }[];
      for (const c of open) {
        const r = await call(n, "git_conflict_resolve", { id: c.concept_id, strategy: "theirs" });
        expect(r.isError, text(r)).toBeFalsy();
      }
      expect(json(await call(n, "sync_status", {}))).toMatchObject({ conflicts: 0, unpushed: 0 });
    }
  }, 60_000);

  it("a human push is picked up by all three", async () => {
    const human = join(remote.dir, "human");
    gitSync(remote.dir, "clone", "-q", remote.bare, human);
    writeFileSync(join(human, "data", "e2e", "human.md"), "---\ntype: note\n---\nhumanword\n");
    gitSync(human, "add", "-A");
    gitSync(human, "-c", "user.name=H", "-c", "user.email=h@x", "commit", "-qm", "human edit");
    gitSync(human, "push", "-q", "origin", "HEAD:main");
    for (const n of nodes)
      await expect
        .poll(() => searchTotal(n, "humanword"), { timeout: 5_000 })
        .toBe(1)
        .catch(async (e) => {
          throw new Error(`${n.name}: ${text(await call(n, "sync_status", {}))} ${e}`);
        });
  }, 30_000);

  it("remote away: writes land locally; pending pushes drain when it returns", async () => {
    const a = nodes[0] as Node;
    renameSync(remote.bare, `${remote.bare}.away`);
    const res = await write(a, "e2e/offline", "offline\n");
    expect(res.isError, text(res)).toBeFalsy();
    await new Promise((r) => setTimeout(r, 800)); // the debounced push has failed by now
    expect(json(await call(a, "concept_read", { id: "e2e/offline" })).body).toContain("offline");
    renameSync(`${remote.bare}.away`, remote.bare);
    expect(remoteSubjects()).not.toContain("concept_write: e2e/offline");
    await expect
      .poll(() => remoteSubjects()[0], { timeout: 15_000 })
      .toBe("concept_write: e2e/offline");
  }, 30_000);

  it("SIGKILL mid-burst: nothing acknowledged is lost after restart", async () => {
    const c = nodes[2] as Node;
    const acked: string[] = [];
    const burst = Array.from({ length: 12 }, (_, i) =>
      write(c, `e2e/burst-${i}`, `burst ${i}\n`).then(
        (r) => !r.isError && acked.push(`e2e/burst-${i}`),
        () => {},
      ),
    );
    // Killed once a few writes are acknowledged and others are still under way.
    await expect.poll(() => acked.length, { timeout: 10_000, interval: 20 }).toBeGreaterThan(1);
    await c.server.stop("SIGKILL");
    await Promise.all(burst);
    await c.client.close().catch(() => {});
    const again = await startNode("c", c.root);
    nodes[2] = again;
    await call(again, "sync_status", {}); // flushes what the killed process had not pushed
    await call(again, "concept_write", {
      id: "e2e/after-restart",
      frontmatter: { type: "note" },
      body: "x\n",
    });
    await call(again, "sync_status", {});
    const subjects = remoteSubjects();
    expect(acked.length).toBeGreaterThan(0);
    for (const id of acked) expect(subjects, id).toContain(`concept_write: ${id}`);
  }, 60_000);
});
