/**
 * The built binary over HTTP with auth and a signed, required-mode audit log: every kind of
 * call leaves a matching attempt/completion pair, the log verifies with the CLI, no secret or
 * content reaches it, and an unwritable log rejects calls before the handler runs.
 */
import { execFileSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../helpers.js";
import {
  auditLines,
  auditTexts,
  CANARY,
  gitHead,
  httpClient,
  PUBLIC_KEY,
  pairFor,
  SEED,
  sandbox,
  textOf,
  verifyCli,
  writeConfig,
} from "./helpers.js";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const REJECTION = "audit log unavailable: call rejected (required mode)";

/**
 * Makes every append fail for real, mid-run, in a process that keeps its log open: lowering
 * the server's RLIMIT_FSIZE soft limit to the log's current size makes the kernel refuse any
 * write that would grow the file (EFBIG; Node ignores SIGXFSZ). chmod cannot do this (we run as
 * root, and the descriptor is already open), nor can removing the directory (an open, unlinked
 * inode stays writable). Raising the limit again lets appends succeed.
 */
function limitFileSize(pid: number, bytes: number | "unlimited"): void {
  execFileSync("prlimit", [`--pid=${pid}`, `--fsize=${bytes}:unlimited`]);
}
const hasPrlimit = (() => {
  try {
    execFileSync("prlimit", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

async function ready(url: string): Promise<number> {
  return (await fetch(`${url}/ready`)).status;
}

describe("audit over HTTP (built binary, auth on, signed, required mode)", () => {
  it.skipIf(!hasPrlimit)(
    "records every call kind, verifies, leaks nothing, and rejects calls while unwritable",
    async () => {
      const box = await sandbox();
      cleanups.push(box.cleanup);
      const config = writeConfig(box.dir, { log: "audit/audit.jsonl", mode: "required" });
      const env = { ...box.env, CARTOGRAPHER_AUDIT_KEY: SEED };
      const server: RunningServer = await startServer(["--config", config], { cwd: box.dir, env });
      cleanups.push(() => server.stop());
      const log = join(box.dir, "audit", "audit.jsonl");
      const connect = async (token: string): Promise<Client> => {
        const c = await httpClient(server.url, token);
        cleanups.push(() => c.close());
        return c;
      };
      const admin = await connect(CANARY.adminToken);
      const reader = await connect(CANARY.readerToken);
      const notesOnly = await connect(CANARY.noteToken);

      const wrote = await admin.callTool({
        name: "concept_write",
        arguments: {
          id: "notes-alpha",
          frontmatter: { type: "note", owner: CANARY.frontmatter },
          body: `The body ${CANARY.body}.`,
        },
      });
      expect(wrote.isError, textOf(wrote)).toBeFalsy();
      const headAfterAlpha = gitHead(box.kbRoot);
      const runbook = await admin.callTool({
        name: "concept_write",
        arguments: { id: "ops-runbook", frontmatter: { type: "runbook" }, body: "steps" },
      });
      expect(runbook.isError, textOf(runbook)).toBeFalsy();
      const read = await admin.callTool({ name: "concept_read", arguments: { id: "notes-alpha" } });
      expect(textOf(read)).toContain(CANARY.body);
      const missing = await admin.callTool({ name: "concept_read", arguments: { id: "nope" } });
      expect(missing.isError).toBe(true);
      const forbidden = await reader.callTool({
        name: "concept_write",
        arguments: {
          id: "notes-beta",
          frontmatter: { type: "note", owner: CANARY.frontmatter },
          body: CANARY.body,
        },
      });
      expect(textOf(forbidden)).toBe("forbidden");
      const hidden = await notesOnly.callTool({
        name: "concept_read",
        arguments: { id: "ops-runbook" },
      });
      expect(textOf(hidden)).toBe("not found");
      const unknown = await admin.callTool({
        name: "no_such_tool",
        arguments: { id: "x", secret: CANARY.unknownArg },
      });
      expect(textOf(unknown)).toBe("tool not found: no_such_tool");

      const lines = auditLines(log);
      for (const l of lines) {
        expect(l.transport).toBe("http");
        expect(l.kb).toBe("lab");
        expect(l.sig).toMatch(/^[0-9a-f]{128}$/);
      }
      const w = pairFor(lines, "concept_write", "admin-ops", "success", "notes-alpha");
      expect(w.attempt.resources).toEqual({ id: "notes-alpha" });
      expect(w.attempt.read_only).toBe(false);
      expect(w.completion.commit_sha).toBe(headAfterAlpha);
      const w2 = pairFor(lines, "concept_write", "admin-ops", "success", "ops-runbook");
      expect(w2.completion.commit_sha).toBe(gitHead(box.kbRoot));
      const r = pairFor(lines, "concept_read", "admin-ops", "success");
      expect(r.attempt).toMatchObject({ read_only: true, resources: { id: "notes-alpha" } });
      expect(r.completion.commit_sha).toBeNull();
      const e = pairFor(lines, "concept_read", "admin-ops", "application_error");
      expect(e.attempt.resources).toEqual({ id: "nope" });
      const f = pairFor(lines, "concept_write", "reader", "forbidden");
      expect(f.attempt.resources).toEqual({ id: "notes-beta" });
      expect(f.completion.commit_sha).toBeNull();
      const h = pairFor(lines, "concept_read", "notes-only", "not_found_hidden");
      expect(h.attempt.resources).toEqual({ id: "ops-runbook" });
      const u = pairFor(lines, "no_such_tool", "admin-ops", "unknown_tool");
      expect(u.attempt.resources).toEqual({});
      expect(u.attempt.read_only).toBe(false);
      expect(lines).toHaveLength(14);

      // Required mode: the log becomes unwritable mid-run.
      const pid = server.proc.pid as number;
      const headBefore = gitHead(box.kbRoot);
      expect(await ready(server.url)).toBe(200);
      limitFileSize(pid, statSync(log).size);
      const rejected = await admin.callTool({
        name: "concept_write",
        arguments: { id: "notes-gamma", frontmatter: { type: "note" }, body: "never" },
      });
      expect(rejected.isError).toBe(true);
      expect(textOf(rejected)).toBe(REJECTION);
      expect(await ready(server.url)).toBe(503);
      // The handler never ran: no commit, no file, a clean worktree.
      expect(gitHead(box.kbRoot)).toBe(headBefore);
      expect(
        execFileSync("git", ["status", "--porcelain"], { cwd: box.kbRoot, encoding: "utf8" }),
      ).toBe("");
      const mentions = execFileSync(
        "sh",
        ["-c", 'grep -rl notes-gamma --exclude-dir=.git "$0" || true', box.kbRoot],
        { encoding: "utf8" },
      );
      expect(mentions).toBe("");
      limitFileSize(pid, "unlimited");
      expect(await ready(server.url)).toBe(503); // until an append succeeds again
      const again = await admin.callTool({
        name: "concept_read",
        arguments: { id: "notes-alpha" },
      });
      expect(again.isError).toBeFalsy();
      expect(await ready(server.url)).toBe(200);
      expect(existsSync(join(box.kbRoot, "data", "notes-gamma.md"))).toBe(false);
      expect(server.stderr()).toContain("calls are rejected until it is writable again");

      expect(await server.stop()).toBe(0);
      const ok = await verifyCli(box.dir, box.env, log, ["--public-key", PUBLIC_KEY]);
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stdout).toContain("audit: chain verified");
      expect(ok.stdout).toContain("valid: 16\n");
      expect(ok.stdout).toContain("signed: 16\n");
      expect(ok.stdout).toContain("incomplete: 0 ");
      const wrongKey = await verifyCli(box.dir, box.env, log, ["--public-key", "ab".repeat(32)]);
      expect(wrongKey.code).toBe(1);
      expect(wrongKey.stderr).toContain("bad signature");

      // Canary: no body, frontmatter value, token or unknown-tool argument in any audit line.
      for (const text of auditTexts(log, join(box.dir, "audit", "audit-archive")))
        for (const secret of Object.values(CANARY)) expect(text).not.toContain(secret);
      for (const secret of [CANARY.adminToken, CANARY.readerToken, CANARY.noteToken])
        expect(server.stderr()).not.toContain(secret);
    },
    90_000,
  );
});
