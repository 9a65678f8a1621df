import type { Principal } from "../auth/types.js";

export type Transport = "stdio" | "http" | "in-memory" | "console";

/** Every call carries an explicit principal (design.md §3). */
export interface CallContext {
  principal: Principal;
  transport: Transport;
  requestId: string;
  /**
   * Present when the caller passed `_meta.progressToken`: reports `done` of `total` as
   * `notifications/progress` (docs/http.md "Resources, prompts, completions, progress, logging").
   * Handlers see it as ToolContext.progress.
   */
  progress?: ProgressFn;
}

/** Reports progress of a long call; values must grow (smaller or equal ones are dropped). */
export type ProgressFn = (done: number, total?: number) => void;

/** The principal of stdio and auth-off HTTP. */
export const LOCAL_ADMIN: Principal = Object.freeze({
  id: "local-admin",
  policy: Object.freeze({ admin: true, rules: Object.freeze([]) }),
});
