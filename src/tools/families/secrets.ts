/**
 * SOPS secrets (Go D44/D104) through the `sops` binary (kb/sops.ts): secret_resolve returns the
 * values a concept declares, secret_set changes one value of an existing encrypted
 * `secrets/*.sops.yaml` and commits the still-encrypted file. Both need whole-KB write access.
 * Values never reach the audit (audit fields: ids and paths only; `value` is a content field),
 * an error message, a log line, a commit message or the search index (secrets/ holds no
 * concepts). Creating an encrypted file and choosing its recipients stay operator actions.
 */
import type { WritePlan } from "../../kb/core/api.js";
import { validateId } from "../../kb/core/ids.js";
import { pointerTokens, secretsPath } from "../../kb/core/secret-refs.js";
import { resolveSecrets } from "../../kb/secrets/services.js";
import { encryptedWithValue, requireSops } from "../../kb/secrets/sops.js";
import { defineTool } from "../define.js";
import { arr, nonEmptyStr, opt, str } from "../schema.js";
import type { ToolSpec } from "../spec.js";
import { applyPlan } from "../support/write-plan.js";

const secretResolve = defineTool({
  name: "secret_resolve",
  description:
    "Decrypt the secrets a concept declares (secret_refs NAME=secrets/<f>.sops.yaml#/pointer, or legacy secrets_source): {id, secrets, source}; names narrows. Whole-KB rw access. Errors: not_configured, not_found, invalid_argument.",
  args: {
    id: nonEmptyStr(),
    names: opt(arr(nonEmptyStr())),
  },
  // Changes nothing, but reveals secrets: a write (as in Go), so a client that runs read-only
  // tools without asking still asks first, and authorization requires whole-KB rw.
  readOnly: false,
  advanced: true,
  idempotent: true,
  resource: "exact",
  auditFields: ["id"],
  aliases: { concept_id: "id" },
  targets: (args) => (typeof args.id === "string" ? [{ id: args.id, write: true }] : []),
  requiresWholeKb: () => true,
  handler: async (args, ctx) => {
    validateId(args.id);
    const settings = ctx.runtime.settings;
    const sops = requireSops(settings.sops, settings.name);
    const doc = await ctx.runtime.store.readConcept(args.id);
    const resolved = await resolveSecrets(sops, settings.root, doc, args.names);
    return { id: doc.id, secrets: resolved.secrets, source: resolved.source };
  },
});

const secretSet = defineTool({
  name: "secret_set",
  description:
    "Set one value (key: JSON Pointer, e.g. /db/password) in an existing encrypted secrets/*.sops.yaml through sops; commits the encrypted file. Errors: not_configured, not_found, invalid_argument.",
  args: {
    path: nonEmptyStr("secrets/<file>.sops.yaml"),
    key: nonEmptyStr("JSON Pointer, e.g. /db/password"),
    value: str(),
  },
  readOnly: false,
  advanced: true,
  resource: "whole",
  auditFields: ["path"],
  handler: async (args, ctx) => {
    const path = secretsPath(args.path);
    pointerTokens(args.key);
    const settings = ctx.runtime.settings;
    const sops = requireSops(settings.sops, settings.name);
    const bytes = await encryptedWithValue(sops, settings.root, path, args.key, args.value);
    const plan: WritePlan = {
      changes: [{ path, content: bytes }],
      target: path,
      touchedIds: [],
      result: { path, key: args.key, updated: true },
    };
    return applyPlan(ctx, plan);
  },
});

export const secretTools: ToolSpec[] = [secretResolve, secretSet];
