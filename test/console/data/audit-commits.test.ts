/**
 * The commit index over the whole audit trail: completions found at their positions in archived
 * segments and the live log, across chunk boundaries, after a rotation (the renamed live log
 * keeps its place), never a torn last line, nothing from a segment retention deleted.
 */
import { createHash } from "node:crypto";
import {
  appendFileSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AuditCommitIndex } from "../../../src/console/data/audit-commits.js";
import { completionCall } from "../../../src/console/data/audit-window.js";
import { appendTrail, fillerCalls } from "../../support/audit-trail.js";
import { useTempDirs } from "../../support/temp-dir.js";

const sandbox = useTempDirs("carto-audit-commits-");
const sha = (c: string) => c.repeat(40);
const write = (c: string, principal = `p-${c}`) => ({
  kb: "main",
  principal,
  tool: "concept_write",
  commitSha: sha(c),
  resources: { id: `alpha/${c}` },
});

async function trail() {
  const dir = sandbox();
  const log = join(dir, "audit.jsonl");
  const archive = join(dir, "audit-archive");
  mkdirSync(archive);
  const segment = join(archive, "audit.00000001.jsonl");
  let head = await appendTrail(segment, [write("a"), ...fillerCalls(100)]);
  // More than two read chunks (1 MiB each) of reads around the live log's write.
  head = await appendTrail(log, fillerCalls(1500), head);
  head = await appendTrail(log, [write("b")], head);
  head = await appendTrail(log, fillerCalls(1500), head);
  return { dir, log, archive, segment, head };
}

const principals = async (index: AuditCommitIndex, shas: string[]) =>
  [...(await index.lines(shas))].map(([s, line]) => [s[0], completionCall(line)?.principal_id]);

describe("AuditCommitIndex", () => {
  it("finds completions in segments and the live log, reading the trail only", async () => {
    const t = await trail();
    const digest = () => createHash("sha256").update(readFileSync(t.log)).digest("hex");
    const before = digest();
    const index = new AuditCommitIndex({ log: t.log });
    expect(index.ready).toBe(false);
    await index.refresh();
    expect(index.ready).toBe(true);
    expect(await principals(index, [sha("a"), sha("b"), sha("c")])).toEqual([
      ["a", "p-a"],
      ["b", "p-b"],
    ]);
    expect(index.size).toBe(2);
    expect(digest()).toBe(before);
  });

  it("indexes appended lines on the next pass, never a torn last line", async () => {
    const t = await trail();
    const index = new AuditCommitIndex({ log: t.log });
    await index.refresh();
    const more = join(t.dir, "more.jsonl");
    await appendTrail(more, [write("c")], t.head);
    const [attempt, completion] = readFileSync(more, "utf8").split("\n") as [string, string];
    appendFileSync(t.log, `${attempt}\n${completion}`); // the completion's newline not yet written
    await index.refresh();
    expect(await principals(index, [sha("c")])).toEqual([]);
    appendFileSync(t.log, "\n");
    await index.refresh();
    expect(await principals(index, [sha("c")])).toEqual([["c", "p-c"]]);
  });

  it("keeps a rotated live log's records, drops a deleted segment's", async () => {
    const t = await trail();
    const index = new AuditCommitIndex({ log: t.log });
    await index.refresh();
    renameSync(t.log, join(t.archive, "audit.00000002.jsonl"));
    await appendTrail(t.log, [write("d")], t.head);
    await index.refresh();
    expect(await principals(index, [sha("a"), sha("b"), sha("d")])).toEqual([
      ["a", "p-a"],
      ["b", "p-b"],
      ["d", "p-d"],
    ]);
    rmSync(t.segment);
    await index.refresh();
    expect(await principals(index, [sha("a"), sha("b")])).toEqual([["b", "p-b"]]);
  });

  it("answers nothing for a line edited in place since it was indexed", async () => {
    const t = await trail();
    const index = new AuditCommitIndex({ log: t.log });
    await index.refresh();
    const text = readFileSync(t.log, "utf8");
    // Tampering (which the chain verify reports): the line at b's position now names e.
    writeFileSync(t.log, text.replace(`"commit_sha":"${sha("b")}"`, `"commit_sha":"${sha("e")}"`));
    await index.refresh();
    expect(await principals(index, [sha("b")])).toEqual([]);
  });
});
