/**
 * The tool registry (design.md P4): every family's ToolSpecs, checked once at startup. A spec that
 * could weaken authorization or audit fails registration loudly instead of serving: no resource
 * class, a duplicate name, a targeted class without `targets`, or audit fields that could
 * record content.
 */
import type { KbSettings } from "../kb/core/types.js";
import { assetTools } from "./families/assets.js";
import { batchTools } from "./families/batch.js";
import { governanceTools } from "./families/governance.js";
import { graphTools } from "./families/graph.js";
import { indexTools } from "./families/index-tools.js";
import { mapTools } from "./families/maps.js";
import { provisioningTools } from "./families/provisioning.js";
import { readTools } from "./families/read.js";
import { secretTools } from "./families/secrets.js";
import { serviceTools } from "./families/services.js";
import { skillTools } from "./families/skills.js";
import { syncTools } from "./families/sync.js";
import { writeTools } from "./families/write.js";
import type { ResourceClass, ToolSpec } from "./spec.js";

const RESOURCE_CLASSES: ReadonlySet<string> = new Set<ResourceClass>([
  "exact",
  "collection",
  "src-dst",
  "curated-index",
  "batch",
  "whole",
]);

/** Classes whose authorization needs the concrete targets of a call. */
const TARGETED: ReadonlySet<string> = new Set<ResourceClass>([
  "exact",
  "src-dst",
  "curated-index",
  "batch",
]);

/** Argument fields that carry content: never recorded by the audit (D119). */
export const CONTENT_FIELDS: readonly string[] = [
  "body",
  "frontmatter",
  "content",
  "content_base64",
  "old_string",
  "new_string",
  "edits",
  "append",
  "entry",
  "operations",
  "variables",
  "value",
];

/**
 * String arguments the audit may record: they name things (ids, paths, maps, labels), they do
 * not carry content. Any other string is free text and stays out of the log.
 */
export const ID_FIELDS: readonly string[] = [
  "id",
  "from",
  "to",
  "path",
  "name",
  "scope",
  "template",
  "by",
  "label",
  "prefix",
];

/**
 * Why `field` may not be an audit field of `spec`, or null when it may: it must be declared by
 * the input schema, never a content field, and either an id-like string, a boolean or an enum
 * (a flag that changes behaviour, e.g. concept_delete's recursive: an auditor wants it, and it
 * cannot smuggle content).
 */
function auditFieldProblem(spec: ToolSpec, field: string): string | null {
  if (CONTENT_FIELDS.includes(field)) return "is a content field";
  const props = (spec.inputSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const schema = Object.hasOwn(props, field) ? props[field] : undefined;
  if (!schema) return "is not an argument of its input schema";
  if (schema.type === "boolean") return null;
  if (schema.type === "string" && Array.isArray(schema.enum)) return null;
  if (schema.type === "string" && ID_FIELDS.includes(field)) return null;
  return "is neither an id-like string, a boolean nor an enum";
}

const TOOL_NAME = /^[a-z][a-z0-9_]*$/;

/**
 * Why the spec's Go argument aliases are unsafe, or null: an alias must not shadow an argument
 * of the schema, and must name one (else a Go call would be renamed into an unknown argument).
 */
function aliasProblem(spec: ToolSpec): string | null {
  for (const [alias, ours] of Object.entries(spec.aliases ?? {})) {
    // `array[].key`: a key of the array's object items.
    const [array, key] = alias.split("[].");
    let props = (spec.inputSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
    if (key !== undefined) {
      const items = props[array as string]?.items as Record<string, unknown> | undefined;
      props = (items?.properties ?? {}) as Record<string, Record<string, unknown>>;
    }
    const name = key ?? alias;
    if (Object.hasOwn(props, name)) return `alias ${alias} shadows an argument of its schema`;
    if (ours !== null && !Object.hasOwn(props, ours)) {
      return `alias ${alias} names ${ours}, not an argument`;
    }
  }
  return null;
}

/**
 * Checks specs and returns them frozen, in order. Throws (at startup) naming the offending
 * tool and rule.
 */
export function registerTools(specs: readonly ToolSpec[]): readonly ToolSpec[] {
  const names = new Set<string>();
  for (const spec of specs) {
    const name = spec?.name;
    if (typeof name !== "string" || !TOOL_NAME.test(name)) {
      throw new Error(`tool registry: invalid tool name ${JSON.stringify(name)}`);
    }
    if (names.has(name)) throw new Error(`tool registry: duplicate tool name ${name}`);
    names.add(name);
    if (!RESOURCE_CLASSES.has(spec.resource as string)) {
      throw new Error(
        `tool registry: ${name} has no resource class; every tool needs one to be authorized`,
      );
    }
    if (TARGETED.has(spec.resource) && typeof spec.targets !== "function") {
      throw new Error(`tool registry: ${name} is class ${spec.resource} but declares no targets`);
    }
    if (spec.inputSchema?.type !== "object") {
      throw new Error(`tool registry: ${name} input schema must be an object schema`);
    }
    if (typeof spec.handler !== "function")
      throw new Error(`tool registry: ${name} has no handler`);
    for (const field of spec.auditFields) {
      const problem = auditFieldProblem(spec, field);
      if (problem) throw new Error(`tool registry: ${name} audit field ${field} ${problem}`);
    }
    const problem = aliasProblem(spec);
    if (problem) throw new Error(`tool registry: ${name} ${problem}`);
    if ((spec.enabledFor === undefined) !== (spec.enableKey === undefined)) {
      throw new Error(`tool registry: ${name} must set enabledFor and enableKey together`);
    }
  }
  return Object.freeze([...specs]);
}

let registered: readonly ToolSpec[] | null = null;

/** Every tool of every family, registered once (throws on an invalid spec). */
export function allTools(): readonly ToolSpec[] {
  registered ??= registerTools([
    ...readTools,
    ...graphTools,
    ...governanceTools,
    ...writeTools,
    ...batchTools,
    ...mapTools,
    ...assetTools,
    ...skillTools,
    ...provisioningTools,
    ...indexTools,
    ...serviceTools,
    ...secretTools,
    ...syncTools,
  ]);
  return registered;
}

/** The tools a KB registers: those without an enable condition, plus those it enables. */
export function toolsFor(settings: KbSettings): ToolSpec[] {
  return allTools().filter((spec) => spec.enabledFor === undefined || spec.enabledFor(settings));
}
