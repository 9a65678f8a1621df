/** The principals every decision table uses, compiled through the real config path. */
import { compileAuth } from "../../src/auth/tokens.js";
import type { Principal } from "../../src/auth/types.js";

export const KB = "docs";

const compiled = compileAuth({
  mode: "auto",
  roles: [
    { name: "runbooks", rules: [{ kb: KB, access: "rw", maps: ["infra"], types: ["runbook"] }] },
  ],
  tokens: [
    { token: "t-admin", id: "admin" },
    { token: "t-r", id: "kb-r", scopes: [`kb:${KB}:r`] },
    { token: "t-rw", id: "kb-rw", scopes: [`kb:${KB}:rw`] },
    { token: "t-narrow", id: "narrow", roles: ["runbooks"] },
    { token: "t-other", id: "other-kb", scopes: ["kb:other:rw"] },
  ],
});

function byId(id: string): Principal {
  const found = compiled.principals.find((p) => p.id === id);
  if (found === undefined) throw new Error(`fixture principal ${id} missing`);
  return found;
}

export const principals = {
  admin: byId("admin"),
  r: byId("kb-r"),
  rw: byId("kb-rw"),
  narrow: byId("narrow"),
  other: byId("other-kb"),
};

export type PrincipalName = keyof typeof principals;
export const PRINCIPAL_NAMES = Object.keys(principals) as PrincipalName[];
