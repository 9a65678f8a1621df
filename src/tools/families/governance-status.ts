/** kb_status and commit_gate: the state of the KB's files, index and git working tree. */
import { defineTool } from "../define.js";
import type { ToolSpec } from "../spec.js";

const MAX_PATHS = 200;

const kbStatus = defineTool({
  name: "kb_status",
  description:
    "KB name, concept and map counts, index count, git head/branch/dirty files, capabilities.",
  readOnly: true,
  advanced: false,
  idempotent: true,
  resource: "whole",
  auditFields: [],
  handler: async (_args, ctx) => {
    const { store, index, settings } = ctx.runtime;
    const [files, maps, git] = await Promise.all([
      store.scanConceptFiles(),
      store.maps(),
      store.gitStatus(),
    ]);
    const indexed = index.count();
    return {
      name: settings.name,
      concepts: files.length,
      maps: maps.map((m) => ({ name: m.name, kind: m.kind })),
      // state/done/total: the background build's progress, "ready" once complete.
      index: {
        count: indexed,
        in_sync: indexed === files.length,
        ...ctx.runtime.indexStatus.progress,
      },
      git: {
        head: git.head,
        branch: git.branch,
        dirty: git.dirty.length > 0,
        dirty_files: git.dirty.slice(0, MAX_PATHS),
      },
      capabilities: {
        artifact_write: settings.allowArtifactWrite,
        autocommit: settings.autocommit,
      },
    };
  },
});

const commitGate = defineTool({
  name: "commit_gate",
  description: "Whether the KB has uncommitted changes, and the files a commit would take.",
  readOnly: true,
  advanced: true,
  idempotent: true,
  resource: "whole",
  auditFields: [],
  handler: async (_args, ctx) => {
    const git = await ctx.runtime.store.gitStatus();
    const clean = git.dirty.length === 0;
    return {
      clean,
      head: git.head,
      branch: git.branch,
      would_commit: git.dirty.slice(0, MAX_PATHS),
      total: git.dirty.length,
      truncated: git.dirty.length > MAX_PATHS,
      autocommit: ctx.runtime.settings.autocommit,
      ...(clean ? { note: "working tree clean: nothing to commit" } : {}),
    };
  },
});

export const statusTools: ToolSpec[] = [kbStatus, commitGate];
