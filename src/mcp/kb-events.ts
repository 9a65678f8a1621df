/**
 * Per-KB events a long-lived MCP session can forward to its client (docs/decisions.md "KB warnings
 * reach clients through per-KB events"): warnings and errors logged about the KB (→
 * `notifications/message`) and successful writes (→ `notifications/resources/list_changed` /
 * `updated`). Keyed by the KB root, so the mount's logger (index refresh, unreadable files) and the
 * surface's (call pipeline) feed the same KB.
 *
 * Only warn/error lines are forwarded, first line only, with every absolute path scrubbed (the
 * same rule as error texts): a stack or a server path never reaches a client. Nothing here logs
 * a token or a secret in the first place (the logger never receives one).
 */
import type { Logger } from "../logger.js";
import { scrubPaths } from "../tools/result.js";

export type KbEvent =
  | { kind: "log"; level: "warning" | "error"; message: string }
  | { kind: "changed"; tool: string };

type Listener = (event: KbEvent) => void;

const listeners = new Map<string, Set<Listener>>();

function emit(root: string, event: KbEvent): void {
  for (const listener of listeners.get(root) ?? []) {
    try {
      listener(event);
    } catch {
      // A listener's failure (a closed session) never disturbs the logger or the write.
    }
  }
}

/** `base`, plus warn/error lines forwarded to the sessions listening on the KB at `root`. */
export function kbLogger(base: Logger, root: string): Logger {
  const forward = (level: "warning" | "error", message: string) => {
    if (!listeners.has(root)) return;
    const line = scrubPaths(message.split("\n")[0] ?? "", [root]);
    emit(root, { kind: "log", level, message: line });
  };
  return {
    info: (m) => base.info(m),
    warn: (m) => {
      base.warn(m);
      forward("warning", m);
    },
    error: (m) => {
      base.error(m);
      forward("error", m);
    },
  };
}

/** A write tool succeeded on the KB at `root`. */
export function kbChanged(root: string, tool: string): void {
  emit(root, { kind: "changed", tool });
}

/** Listens to the KB at `root` until the returned function is called. */
export function onKbEvent(root: string, listener: Listener): () => void {
  let set = listeners.get(root);
  if (!set) {
    set = new Set();
    listeners.set(root, set);
  }
  set.add(listener);
  return () => {
    const current = listeners.get(root);
    current?.delete(listener);
    if (current?.size === 0) listeners.delete(root);
  };
}
