/** The built binary over stdio with `--audit-log`: the local admin's calls are audited too. */
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, describe, expect, it } from "vitest";
import { BIN } from "../helpers.js";
import {
  auditLines,
  auditTexts,
  CANARY,
  gitHead,
  PUBLIC_KEY,
  pairFor,
  SEED,
  sandbox,
  textOf,
  verifyCli,
} from "./helpers.js";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("audit over stdio (built binary)", () => {
  it("success, domain error and unknown tool each leave a matching pair; verify passes", async () => {
    const box = await sandbox();
    cleanups.push(box.cleanup);
    const log = join(box.dir, "audit.jsonl");
    const client = new Client({ name: "audit-e2e-stdio", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, "serve", "--kb", "kbs/lab", "--audit-log", "audit.jsonl"],
        cwd: box.dir,
        env: { ...box.env, CARTOGRAPHER_AUDIT_KEY: SEED } as Record<string, string>,
        stderr: "pipe",
      }),
    );
    cleanups.push(() => client.close());

    const wrote = await client.callTool({
      name: "concept_write",
      arguments: {
        id: "alpha",
        frontmatter: { type: "note", owner: CANARY.frontmatter },
        body: CANARY.body,
      },
    });
    expect(wrote.isError, textOf(wrote)).toBeFalsy();
    const bad = await client.callTool({
      name: "concept_write",
      arguments: { id: "beta", frontmatter: {}, body: CANARY.body },
    });
    expect(bad.isError).toBe(true);
    const unknown = await client.callTool({
      name: "no_such_tool",
      arguments: { secret: CANARY.unknownArg },
    });
    expect(textOf(unknown)).toBe("tool not found: no_such_tool");
    await client.close();

    const lines = auditLines(log);
    expect(lines).toHaveLength(6);
    for (const l of lines) expect(l).toMatchObject({ transport: "stdio", kb: "lab" });
    const w = pairFor(lines, "concept_write", "local-admin", "success");
    expect(w.attempt).toMatchObject({ read_only: false, resources: { id: "alpha" } });
    expect(w.completion.commit_sha).toBe(gitHead(box.kbRoot));
    const e = pairFor(lines, "concept_write", "local-admin", "application_error");
    expect(e.attempt.resources).toEqual({ id: "beta" });
    expect(e.completion.commit_sha).toBeNull();
    expect(pairFor(lines, "no_such_tool", "local-admin", "unknown_tool").attempt.resources).toEqual(
      {},
    );

    const v = await verifyCli(box.dir, box.env, log, ["--public-key", PUBLIC_KEY]);
    expect(v.code, v.stderr).toBe(0);
    expect(v.stdout).toContain("signed: 6\n");
    expect(v.stdout).toContain("audit: chain verified");
    for (const text of auditTexts(log))
      for (const secret of Object.values(CANARY)) expect(text).not.toContain(secret);
  }, 60_000);
});
