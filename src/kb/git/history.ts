/**
 * changes_since: one `git log --name-status -M` call, parsed and folded per concept id.
 * The folding is pure (`foldHistory`); `changesSince` only runs git.
 */

import { KbError } from "../../common/errors.js";
import type { ChangeCommit, ChangeRecord } from "../core/api.js";
import { runGit } from "./git.js";

export interface LogCommit {
  time: string;
  author: string;
  subject: string;
  /** status letter (A/M/D/R/C/T), paths (two for renames). */
  files: Array<{ status: string; paths: string[] }>;
}

const RS = "\x1e";
const US = "\x1f";

/** Parses `git log --format=%x1e%aI%x1f%an%x1f%s --name-status` output (newest first). */
export function parseLog(out: string): LogCommit[] {
  return out
    .split(RS)
    .filter((chunk) => chunk.trim() !== "")
    .map((chunk) => {
      const [header = "", ...lines] = chunk.split("\n");
      const [time = "", author = "", subject = ""] = header.split(US);
      const files = lines
        .filter((l) => l.includes("\t"))
        .map((l) => {
          const [status = "", ...paths] = l.split("\t");
          return { status: status.charAt(0), paths };
        });
      return { time, author, subject, files };
    });
}

/** Folds commits (newest first) into one record per concept, newest activity first. */
export function foldHistory(
  commits: LogCommit[],
  idOf: (path: string) => string | null,
): ChangeRecord[] {
  const records = new Map<string, ChangeRecord>();
  const touches = new Map<LogCommit, ChangeCommit>();
  const touchesOf = (c: LogCommit): ChangeCommit => {
    let t = touches.get(c);
    if (!t) {
      const ids: string[] = [];
      let otherPaths = false;
      for (const p of c.files.flatMap((f) => f.paths)) {
        const id = idOf(p);
        if (id === null) otherPaths = true;
        else if (!ids.includes(id)) ids.push(id);
      }
      t = { subject: c.subject, ids, otherPaths };
      touches.set(c, t);
    }
    return t;
  };
  const touch = (id: string, c: LogCommit, change: ChangeRecord["change"], from?: string) => {
    const prev = records.get(id);
    const rec: ChangeRecord = prev ?? { id, change, last_time: c.time, authors: [], subjects: [] };
    if (prev) {
      if (change === "added" && prev.change === "deleted") rec.change = "modified";
      else if (change === "deleted") rec.change = "deleted";
      else if (change === "moved") rec.change = prev.change === "added" ? "added" : "moved";
      else if (change === "added") rec.change = "added";
    }
    if (from !== undefined && rec.change === "moved") rec.from = from;
    rec.last_time = c.time; // commits are folded oldest → newest
    if (!rec.authors.includes(c.author)) rec.authors.push(c.author);
    if (!rec.subjects.includes(c.subject)) rec.subjects.push(c.subject);
    rec.commits ??= [];
    const t = touchesOf(c);
    if (!rec.commits.includes(t)) rec.commits.push(t);
    records.set(id, rec);
  };
  for (const c of [...commits].reverse()) {
    // A map's own index.md changes with its descriptor (map_create/map_delete): not a concept,
    // even when the map no longer exists to say so.
    const mapIndexes = new Set(
      c.files
        .flatMap((f) => f.paths)
        .flatMap((p) => {
          const dir = /^data\/([^/]+)\/(?:_map|_archive)\.md$/.exec(p)?.[1];
          return dir ? [`data/${dir}/index.md`] : [];
        }),
    );
    for (const f of c.files) {
      if (f.paths.some((p) => mapIndexes.has(p))) continue;
      if (f.status === "R" || f.status === "C") {
        const oldId = idOf(f.paths[0] ?? "");
        const newId = idOf(f.paths[1] ?? "");
        if (newId === null) {
          if (oldId !== null && f.status === "R") touch(oldId, c, "deleted");
          continue;
        }
        if (oldId === null || oldId === newId || f.status === "C") {
          touch(newId, c, oldId === newId ? "modified" : "added");
          continue;
        }
        const old = records.get(oldId);
        records.delete(oldId);
        if (old) records.set(newId, { ...old, id: newId });
        touch(newId, c, "moved", old?.from ?? oldId);
        continue;
      }
      const id = idOf(f.paths[0] ?? "");
      if (id === null) continue;
      touch(id, c, f.status === "A" ? "added" : f.status === "D" ? "deleted" : "modified");
    }
  }
  for (const r of records.values()) {
    r.authors.reverse();
    r.subjects.reverse();
    r.commits?.reverse();
  }
  return [...records.values()].sort((a, b) =>
    a.last_time < b.last_time ? 1 : a.last_time > b.last_time ? -1 : a.id < b.id ? -1 : 1,
  );
}

/** Concept changes committed since `since` (an empty list in a repository without commits). */
export async function changesSince(
  root: string,
  since: Date,
  idOf: (path: string) => string | null,
): Promise<ChangeRecord[]> {
  const r = await runGit(root, [
    "log",
    `--since=${since.toISOString()}`,
    "--name-status",
    "-M",
    `--format=${RS}%aI${US}%an${US}%s`,
    "--",
    "data",
    "services",
  ]);
  if (r.code !== 0) {
    if (/does not have any commits|unknown revision/.test(r.stderr)) return [];
    throw new KbError("git_failed", `git log failed: ${r.stderr.trim().split("\n")[0]}`);
  }
  // git's --since parser saturates far-future dates; the window is re-checked on commit times.
  const floor = since.getTime();
  const commits = parseLog(r.stdout).filter((c) => Date.parse(c.time) >= floor);
  return foldHistory(commits, idOf);
}

/**
 * The subjects of `rec` a principal may see, newest first: a commit whose every touched id is
 * visible and that touched nothing else keeps its subject; a tool commit (`<tool>: …`) touching
 * anything hidden is retold as `<tool>: <its visible ids>`; any other subject touching hidden
 * things is dropped. So no hidden id, title or count ("and 1 more") reaches the principal.
 */
export function visibleSubjects(rec: ChangeRecord, visible: (id: string) => boolean): string[] {
  if (!rec.commits) return rec.subjects;
  const out: string[] = [];
  for (const c of rec.commits) {
    const subject = visibleSubject(c, visible);
    if (subject !== null && !out.includes(subject)) out.push(subject);
  }
  return out;
}

/** One commit's subject as `visibleSubjects` tells it, or null when it must be dropped. */
export function visibleSubject(c: ChangeCommit, visible: (id: string) => boolean): string | null {
  if (!c.otherPaths && c.ids.every(visible)) return c.subject;
  const tool = /^([a-z][a-z0-9_]*): /.exec(c.subject)?.[1];
  const shown = c.ids.filter(visible);
  return tool && shown.length > 0 ? `${tool}: ${shown.join(", ")}` : null;
}
