import type { Principal } from "../auth/types.js";

export type Transport = "stdio" | "http" | "in-memory";

/** Every call carries an explicit principal (design.md §3). */
export interface CallContext {
  principal: Principal;
  transport: Transport;
  requestId: string;
}

/** The principal of stdio and auth-off HTTP. */
export const LOCAL_ADMIN: Principal = Object.freeze({
  id: "local-admin",
  policy: Object.freeze({ admin: true, rules: Object.freeze([]) }),
});
