/** Shared setup for the audit end-to-end tests: KBs, config files, clients, audit lines. */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect } from "vitest";
import { publicKeyFromSeed } from "../../../src/audit/entry.js";
import { cleanEnv, GIT_ENV, runBin, tempDir } from "../helpers.js";

export const SEED = "3c".repeat(32);
export const PUBLIC_KEY = publicKeyFromSeed(SEED);
/** Planted in calls; must never reach an audit line. */
export const CANARY = {
  body: "CANARY_BODY_7f3a91",
  frontmatter: "CANARY_FM_52be0c",
  adminToken: "CANARY_TOKEN_admin_e41d",
  readerToken: "CANARY_TOKEN_reader_9a0b",
  noteToken: "CANARY_TOKEN_notes_c7d2",
  unknownArg: "CANARY_ARG_0d6e",
};

export interface Sandbox {
  dir: string;
  env: NodeJS.ProcessEnv;
  kbRoot: string;
  cleanup: () => void;
}

/** A temp dir with one KB `lab` (created by the built binary) under kbs/lab. */
export async function sandbox(): Promise<Sandbox> {
  const t = tempDir("carto-audit-e2e-");
  const env = cleanEnv(GIT_ENV);
  const made = await runBin(["kb", "create", "lab", "--data", "kbs"], { cwd: t.dir, env });
  expect(made.code, made.stderr).toBe(0);
  return { dir: t.dir, env, kbRoot: join(t.dir, "kbs", "lab"), cleanup: t.cleanup };
}

/** A YAML config: auth with three principals, the KB `lab`, and the given audit section. */
export function writeConfig(dir: string, audit: Record<string, string | number>): string {
  const auditYaml = Object.entries(audit)
    .map(([k, v]) => `  ${k}: ${typeof v === "string" ? JSON.stringify(v) : v}`)
    .join("\n");
  const text = `http: "127.0.0.1:0"
kbs:
  - { path: kbs/lab, name: lab }
auth:
  tokens:
    - { token: ${CANARY.adminToken}, id: admin-ops }
    - { token: ${CANARY.readerToken}, id: reader, scopes: ["kb:lab:r"] }
    - { token: ${CANARY.noteToken}, id: notes-only, roles: [notes] }
  roles:
    - { name: notes, rules: [{ kb: lab, access: r, types: [note] }] }
audit:
${auditYaml}
`;
  const file = join(dir, "cartographer.yaml");
  writeFileSync(file, text);
  return file;
}

export async function httpClient(url: string, token: string): Promise<Client> {
  const client = new Client({ name: "audit-e2e", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp/lab`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

export function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ text?: string }> }).content ?? [];
  return content.map((c) => c.text ?? "").join("");
}

export interface AuditLine {
  phase: "attempt" | "completion";
  request_id: string;
  principal_id: string;
  transport: string;
  kb: string;
  tool: string;
  read_only: boolean;
  resources: Record<string, unknown>;
  outcome?: string;
  commit_sha?: string | null;
  hash: string;
  sig?: string;
}

/** Raw text of the live log and every archived segment (for the canary scan). */
export function auditTexts(log: string, archiveDir?: string): string[] {
  const texts = existsSync(log) ? [readFileSync(log, "utf8")] : [];
  if (archiveDir && existsSync(archiveDir))
    for (const n of readdirSync(archiveDir).sort())
      texts.push(readFileSync(join(archiveDir, n), "utf8"));
  return texts;
}

export function auditLines(log: string): AuditLine[] {
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as AuditLine);
}

/**
 * The attempt and completion of the one call to `tool` by `principal` that ended in `outcome`
 * (and, when given, named concept `id`); asserts they share request_id and every call fact.
 */
export function pairFor(
  lines: AuditLine[],
  tool: string,
  principal: string,
  outcome: string,
  id?: string,
): { attempt: AuditLine; completion: AuditLine } {
  const completion = lines.filter(
    (l) =>
      l.phase === "completion" &&
      l.tool === tool &&
      l.principal_id === principal &&
      l.outcome === outcome &&
      (id === undefined || l.resources.id === id),
  );
  expect(completion, `one ${tool}/${principal}/${outcome} completion`).toHaveLength(1);
  const c = completion[0] as AuditLine;
  const attempts = lines.filter((l) => l.phase === "attempt" && l.request_id === c.request_id);
  expect(attempts).toHaveLength(1);
  const a = attempts[0] as AuditLine;
  expect(lines.indexOf(a)).toBeLessThan(lines.indexOf(c));
  for (const key of ["principal_id", "transport", "kb", "tool", "read_only"] as const)
    expect(a[key]).toEqual(c[key]);
  expect(a.resources).toEqual(c.resources);
  expect(a.outcome).toBeUndefined();
  return { attempt: a, completion: c };
}

export function gitHead(root: string): string {
  return execFileSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
}

export async function verifyCli(
  cwd: string,
  env: NodeJS.ProcessEnv,
  log: string,
  extra: string[] = [],
): Promise<{ code: number; stdout: string; stderr: string }> {
  return runBin(["audit", "verify", "--log", log, ...extra], { cwd, env });
}

export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  ms = 30_000,
): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
