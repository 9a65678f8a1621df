/**
 * The README quick start takes a new user past `connect`: it says that `npm start` holds the
 * terminal, that the agent tool must be restarted, gives a first prompt, and shows how to look
 * at the KB without an agent — and that way works: the README's own curl request, sent to a
 * server started as the quick start starts it (bare `serve` in an empty folder), answers, and
 * the starter KB it creates has a welcome map to search.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer, tempDir } from "./helpers.js";

const README = readFileSync(resolve(import.meta.dirname, "../../README.md"), "utf8");
const quickStart = README.slice(README.indexOf("## Quick start"), README.indexOf("## Using it"));

let server: RunningServer | undefined;
const dir = tempDir("carto-readme-");
afterAll(async () => {
  await server?.stop();
  dir.cleanup();
});

describe("README quick start", () => {
  it("says what comes after connect", () => {
    expect(quickStart).toMatch(/`npm start` runs in the foreground and holds the terminal/);
    expect(quickStart).toMatch(/second\s+terminal/);
    expect(quickStart).toMatch(/restart the agent tool/i);
    expect(quickStart).toMatch(/A first prompt to try:\n\n> /);
    expect(quickStart).toMatch(/without an agent/);
  });

  it("its curl request to look at the KB works against the starter KB", async () => {
    const curl = /curl -s (http:\/\/127\.0\.0\.1:39273\/mcp\/routed)[\s\S]*?-d '([^']+)'/.exec(
      quickStart,
    );
    expect(curl).not.toBeNull();
    const [, readmeUrl, body] = curl as unknown as [string, string, string];
    server = await startServer(["--http", "127.0.0.1:0"], { cwd: dir.dir });
    const url = (readmeUrl as string).replace("http://127.0.0.1:39273", server.url);
    const res = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body,
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { result?: { content: Array<{ text: string }> } };
    const overview = JSON.parse(answer.result?.content[0]?.text ?? "null") as {
      kb: string;
      concepts: number;
      maps: { name: string; concepts: number }[];
    };
    expect(overview.kb).toBe("notes");
    // The starter KB is not empty: a welcome map of three linked concepts, searchable.
    expect(overview.maps).toContainEqual(expect.objectContaining({ name: "welcome", concepts: 3 }));
    const search = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "search", arguments: { kb: "notes", query: "wiki links" } },
      }),
    });
    const found = (await search.json()) as { result?: { content: Array<{ text: string }> } };
    const hits = JSON.parse(found.result?.content[0]?.text ?? "null") as {
      results: { id: string }[];
    };
    expect(hits.results.map((h) => h.id)).toContain("welcome/links-and-search");
    // The files the README points at exist where it says.
    expect(quickStart).toContain("cartographer-data/notes/data/");
    expect(readFileSync(resolve(dir.dir, "cartographer-data/notes/data/index.md"), "utf8")).toMatch(
      /^---/,
    );
  }, 60_000);
});
