/**
 * A read tool run here on a KB folder no process holds: the KB's lock is taken for the call (so
 * no server starts on it meanwhile), the search index is brought up to date with the files (it is
 * derived data, .cartographer/index.db), and the tool runs through the same pipeline a server's
 * call takes, so `--json` prints the same answer (docs/decisions.md "Terminal commands"). The
 * KB's files and git history are only read.
 */
import { isKbError } from "../../common/errors.js";
import type { HeldLock } from "../../common/process-lock.js";
import { acquireKbLock } from "../../kb/locks/kb-lock.js";
import { openKb } from "../../kb/store/store.js";
import type { Logger } from "../../logger.js";
import { LOCAL_ADMIN } from "../../mcp/context.js";
import { KbSurface } from "../../mcp/kb-surface.js";
import { KbRuntime } from "../../runtime/kb-runtime.js";
import { openKbIndex } from "../../search/index.js";
import { toolsFor } from "../../tools/registry.js";
import type { CliIo } from "../io.js";
import { type ReadTarget, toolFailure } from "./read-answer.js";

export interface LocalFolder {
  name: string;
  root: string;
}

/** Warnings (a damaged index moved aside) reach stderr; progress notes would be noise here. */
function warningsTo(stderr: NodeJS.WritableStream): Logger {
  const line = (level: string, message: string) =>
    stderr.write(`cartographer ${level}: ${message}\n`);
  return { info: () => {}, warn: (m) => line("warn", m), error: (m) => line("error", m) };
}

/** The KB folder opened for reads, or null when another process (a server) holds it. */
export async function openLocalKb(io: CliIo, kb: LocalFolder): Promise<ReadTarget | null> {
  const logger = warningsTo(io.stderr);
  let lock: HeldLock;
  try {
    lock = await acquireKbLock(kb, "read", logger);
  } catch (err) {
    if (isKbError(err, "locked")) return null;
    throw err;
  }
  try {
    const settings = { name: kb.name, root: kb.root, allowArtifactWrite: false, autocommit: true };
    const store = await openKb(settings, { logger });
    const { index } = await openKbIndex(store, { logger });
    const surface = new KbSurface({
      runtime: new KbRuntime(store, index),
      // Only the read-only tools: nothing run here may write the KB.
      specs: toolsFor(store.settings).filter((spec) => spec.readOnly),
      audit: null,
      logger,
    });
    return {
      where: kb.root,
      async call(tool, args) {
        const ctx = { principal: LOCAL_ADMIN, transport: "in-memory" as const, requestId: "" };
        const result = await surface.callTool(tool, args, ctx);
        const first = result.content[0];
        const text = first?.type === "text" ? first.text : "";
        if (result.isError) throw toolFailure(tool, kb.root, text);
        return text;
      },
      async close() {
        index.close();
        await lock.release();
      },
    };
  } catch (err) {
    await lock.release();
    throw err;
  }
}
