/**
 * Service concepts (Go D44): service_list inventories the `type: Service` concepts a caller may
 * see; service_get reads one, and with `resolve_secrets: true` also decrypts what it declares
 * (secret_refs, or the legacy secrets_source) — which needs whole-KB write access, as in Go (D47).
 */
import { validateId } from "../../kb/core/ids.js";
import { requireService, resolveSecrets, SERVICE_TYPE } from "../../kb/secrets/services.js";
import { requireSops } from "../../kb/secrets/sops.js";
import { defineTool } from "../define.js";
import { bool, int, nonEmptyStr, opt } from "../schema.js";
import type { ToolSpec } from "../spec.js";

const SERVICE_LIST_DEFAULT_LIMIT = 500;
const SERVICE_LIST_MAX_LIMIT = 5000;

const serviceGet = defineTool({
  name: "service_get",
  description:
    "Read a Service concept: {id, hash, frontmatter, body}. resolve_secrets adds {secrets, secrets_source} (whole-KB rw access; sops + kbs[].sops_age_key_file). Errors: not_found, invalid_argument (not a Service), not_configured.",
  args: {
    id: nonEmptyStr("Service concept id, e.g. services/keycloak"),
    resolve_secrets: opt(bool()),
  },
  readOnly: true,
  advanced: true,
  idempotent: true,
  resource: "exact",
  auditFields: ["id", "resolve_secrets"],
  aliases: { service_id: "id" },
  // Resolving is judged as a write of the concept plus whole-KB rw (Go D47), so an r token
  // reads the descriptor but never its secrets.
  targets: (args) =>
    typeof args.id === "string" ? [{ id: args.id, write: args.resolve_secrets === true }] : [],
  requiresWholeKb: (args) => args.resolve_secrets === true,
  handler: async (args, ctx) => {
    validateId(args.id);
    const doc = requireService(await ctx.runtime.store.readConcept(args.id));
    const result: Record<string, unknown> = {
      id: doc.id,
      hash: doc.hash,
      path: doc.path,
      title: doc.title,
      frontmatter: doc.frontmatter,
      body: doc.body,
    };
    if (!args.resolve_secrets) return result;
    const settings = ctx.runtime.settings;
    const resolved = await resolveSecrets(
      requireSops(settings.sops, settings.name),
      settings.root,
      doc,
    );
    return { ...result, secrets: resolved.secrets, secrets_source: resolved.source };
  },
});

const serviceList = defineTool({
  name: "service_list",
  description:
    "List the Service concepts (type: Service) you can see: {services: [{id, title, status}], total, truncated}.",
  args: {
    limit: opt(int({ min: 1, max: SERVICE_LIST_MAX_LIMIT }), SERVICE_LIST_DEFAULT_LIMIT),
  },
  readOnly: true,
  advanced: true,
  idempotent: true,
  resource: "collection",
  auditFields: [],
  handler: async (args, ctx) => {
    const page = ctx.runtime.index.list({
      where: [`type=${SERVICE_TYPE}`],
      limit: args.limit,
      visibility: ctx.visibility,
    });
    const docs = await Promise.all(
      page.items.map((item) => ctx.runtime.store.tryReadConcept(item.id)),
    );
    const services = page.items.map((item, i) => {
      const status = docs[i]?.frontmatter.status;
      return {
        id: item.id,
        title: item.title,
        status: typeof status === "string" ? status : null,
      };
    });
    return { services, total: page.total, truncated: page.truncated };
  },
});

export const serviceTools: ToolSpec[] = [serviceGet, serviceList];
