/**
 * The concept page of a large body through real HTTP (docs/decisions.md "Console: the first
 * render of a large concept"): rendered ahead at the console's start and after a write through
 * the MCP tool, then served from that one shared rendering — proved by the render cache's
 * counters, not by timing — and linked per viewer byte-identical to the per-viewer rendering
 * (a hidden target reads exactly as a missing one).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RENDER_POOL, RENDERS } from "../../../src/console/render/cache.js";
import { renderMarkdown } from "../../../src/console/render/markdown.js";
import { LOCAL_ADMIN } from "../../../src/mcp/context.js";
import {
  ADMIN_TOKEN,
  CONSOLE_FILES,
  type ConsoleServer,
  consoleServer,
  NARROW_TOKEN,
  signIn,
} from "../../support/console-kb.js";

/** A body over the cache's threshold linking visible, hidden and missing concepts. */
function bigBody(tag: string): string {
  const block = `## Part ${tag}\n\nSee [[public/second|the second]], [[secret/plans]], [[secret/plans#Goals|goals]], [[public/nothing]] and [welcome](welcome.md), [plans](../secret/plans.md "t").\n\n- item with \`code\` and **strong**\n\n`;
  return block.repeat(Math.ceil(40_000 / block.length));
}

const FILES = {
  ...CONSOLE_FILES,
  "data/public/big.md": `---\ntype: note\ntitle: Big page\n---\n${bigBody("A")}`,
};

let s: ConsoleServer;
let admin: string;
let narrow: string;

async function call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const surface = s.app.surfaces.get("kb");
  if (!surface) throw new Error("KB kb is not served");
  const r = await surface.callTool(name, args, {
    principal: LOCAL_ADMIN,
    transport: "in-memory",
    requestId: "",
  });
  const text = r.content[0]?.type === "text" ? r.content[0].text : "";
  if (r.isError) throw new Error(`${name}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/** Polls `ready` (an observable state, not a delay) for at most 20 s. */
async function until(ready: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error("not prepared within 20 s");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The page's rendered body. */
function bodyOf(page: string): string {
  const start = page.indexOf('<div class="concept-body">');
  const end = page.indexOf('</div>\n<aside class="side"');
  if (start < 0 || end < 0) throw new Error("no concept body in the page");
  return page.slice(start + '<div class="concept-body">'.length, end);
}

beforeAll(async () => {
  s = await consoleServer({ files: FILES });
  admin = await signIn(s, ADMIN_TOKEN);
  narrow = await signIn(s, NARROW_TOKEN);
}, 60_000);
afterAll(async () => {
  await s.close();
});

describe("concept page of a large body", () => {
  it("is rendered once at start and served to both viewers from it, each linked as before", async () => {
    const read = await call("concept_read", { id: "public/big", full: true });
    const place = { kb: "kb", fromPath: "data/public/big.md" };
    await until(() => RENDERS.has(place, read.hash as string));
    const before = { ...RENDERS.counters };
    const asAdmin = await s.get("/console/kb/c/public/big", { Cookie: admin });
    const asNarrow = await s.get("/console/kb/c/public/big", { Cookie: narrow });
    expect([asAdmin.status, asNarrow.status]).toEqual([200, 200]);
    expect(RENDERS.counters.viewRenders).toBe(before.viewRenders);
    expect(RENDERS.counters.hits).toBe(before.hits + 2);
    expect(before.backgroundRenders).toBeGreaterThanOrEqual(1);
    // Made on the render thread, not the main one.
    expect(RENDER_POOL.counters.offThread).toBeGreaterThanOrEqual(1);
    expect(RENDER_POOL.counters.inProcess).toBe(0);

    const body = read.body as string;
    const exists = new Set(["public/second", "public/welcome", "secret/plans"]);
    const adminOld = renderMarkdown(body, place, (id) => exists.has(id)).value;
    const narrowOld = renderMarkdown(
      body,
      place,
      (id) => id.startsWith("public/") && exists.has(id),
    );
    expect(bodyOf(asAdmin.body)).toBe(adminOld);
    expect(bodyOf(asNarrow.body)).toBe(narrowOld.value);
    // Hidden ≡ missing: the narrow reader's hidden target reads as the missing one does.
    expect(bodyOf(asNarrow.body)).toContain('<span class="missing-link">secret/plans</span>');
    expect(bodyOf(asNarrow.body)).toContain('<span class="missing-link">public/nothing</span>');
    expect(asNarrow.body).not.toContain("/console/kb/c/secret/plans");
    expect(asNarrow.body).not.toContain("concept-link");
    expect(asAdmin.body).toContain('<a class="wikilink" href="/console/kb/c/secret/plans#Goals"');
  });

  it("a concept written through the MCP tool is prepared before its first view", async () => {
    const before = { ...RENDERS.counters };
    // The official SDK client over Streamable HTTP, as an agent writes.
    const client = new Client({ name: "warm-test", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${s.url}/mcp/kb`), {
        requestInit: { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } },
      }),
    );
    const result = await client.callTool({
      name: "concept_write",
      arguments: {
        id: "public/fresh",
        frontmatter: { type: "note", title: "Fresh" },
        body: bigBody("B"),
      },
    });
    await client.close();
    const content = result.content as Array<{ type: string; text?: string }>;
    expect(result.isError).toBeFalsy();
    const written = JSON.parse(content[0]?.text ?? "{}") as { hash?: string };
    const place = { kb: "kb", fromPath: "data/public/fresh.md" };
    await until(() => RENDERS.has(place, written.hash as string));
    expect(RENDERS.counters.backgroundRenders).toBe(before.backgroundRenders + 1);
    const page = await s.get("/console/kb/c/public/fresh", { Cookie: narrow });
    expect(page.status).toBe(200);
    expect(RENDERS.counters.hits).toBe(before.hits + 1);
    expect(RENDERS.counters.viewRenders).toBe(before.viewRenders);
    expect(bodyOf(page.body)).toContain('<span class="missing-link">secret/plans</span>');
  });

  it("a hidden target and a missing one give the narrow reader byte-identical bodies", async () => {
    const body = (target: string) =>
      `${bigBody("C")}\nEnd: [[${target}|the target]], [t](../${target}.md).\n`;
    await call("concept_write", {
      id: "public/to-hidden",
      frontmatter: { type: "note", title: "To hidden" },
      body: body("secret/plans"),
    });
    await call("concept_write", {
      id: "public/to-missing",
      frontmatter: { type: "note", title: "To missing" },
      body: body("secret/absent"),
    });
    const hidden = await s.get("/console/kb/c/public/to-hidden", { Cookie: narrow });
    const missing = await s.get("/console/kb/c/public/to-missing", { Cookie: narrow });
    expect(bodyOf(hidden.body)).toBe(bodyOf(missing.body));
    expect(bodyOf(hidden.body)).toContain('End: <span class="missing-link">the target</span>');
    const asAdmin = await s.get("/console/kb/c/public/to-hidden", { Cookie: admin });
    expect(bodyOf(asAdmin.body)).toContain('<a class="wikilink" href="/console/kb/c/secret/plans"');
  });

  it("a small concept is not rendered ahead, and its page is rendered on view", async () => {
    const before = { ...RENDERS.counters };
    await call("concept_write", {
      id: "public/small",
      frontmatter: { type: "note", title: "Small" },
      body: "See [[secret/plans]].\n",
    });
    const page = await s.get("/console/kb/c/public/small", { Cookie: narrow });
    expect(bodyOf(page.body)).toBe('<p>See <span class="missing-link">secret/plans</span>.</p>\n');
    expect(RENDERS.counters.backgroundRenders).toBe(before.backgroundRenders);
    expect(RENDERS.counters.viewRenders).toBe(before.viewRenders + 1);
  });
});
