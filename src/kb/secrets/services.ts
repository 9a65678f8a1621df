/**
 * Service concepts (`type: Service`, usually under `services/`) and the secrets a concept
 * declares (secret-refs.ts), resolved through sops (sops.ts). Resolved values go to the caller
 * only: never into an error message, a log line, the audit or the search index.
 */
import { KbError } from "../../common/errors.js";
import { legacyNames, secretDeclaration, shown } from "../core/secret-refs.js";
import type { ConceptDoc, SopsSettings } from "../core/types.js";
import { decryptSecrets } from "./sops.js";

export const SERVICE_TYPE = "Service";

/** `doc` itself when it is a Service concept, else `invalid_argument` naming its type. */
export function requireService(doc: ConceptDoc): ConceptDoc {
  if (doc.type === SERVICE_TYPE) return doc;
  throw new KbError(
    "invalid_argument",
    `${doc.id} has type ${doc.type || "(none)"}, not ${SERVICE_TYPE}: service_get reads Service concepts only (use concept_read)`,
  );
}

export interface ResolvedSecrets {
  /** NAME → value. */
  secrets: Record<string, string>;
  /** `secret_refs`, or the legacy `secrets_source` file that was decrypted whole. */
  source: string;
}

/** How many pointers a missing-key error lists (pointers, never values). */
const LISTED_KEYS = 10;

/**
 * The secrets `doc` declares, decrypted; only `names` when given (each must be declared).
 * With `secret_refs` only the declared pointers are returned (least privilege); with a legacy
 * `secrets_source` the whole file (top-level keys bare, deeper ones as pointers).
 */
export async function resolveSecrets(
  sops: SopsSettings,
  root: string,
  doc: ConceptDoc,
  names?: readonly string[],
): Promise<ResolvedSecrets> {
  const declared = secretDeclaration(doc.frontmatter, doc.id);
  const secrets: Record<string, string> = {};
  if (declared.kind === "source") {
    const all = legacyNames(await decryptSecrets(sops, root, declared.file));
    checkNames(doc.id, names, Object.keys(all));
    for (const [name, value] of Object.entries(all))
      if (!names || names.includes(name)) secrets[name] = value;
    return { secrets, source: declared.file };
  }
  checkNames(
    doc.id,
    names,
    declared.refs.map((r) => r.name),
  );
  const files = new Map<string, Map<string, string>>();
  for (const ref of declared.refs) {
    if (names && !names.includes(ref.name)) continue;
    let values = files.get(ref.file);
    if (!values) {
      values = await decryptSecrets(sops, root, ref.file);
      files.set(ref.file, values);
    }
    const value = values.get(ref.pointer);
    if (value === undefined) {
      const keys = [...values.keys()].sort().slice(0, LISTED_KEYS).map(shown).join(", ");
      throw new KbError(
        "not_found",
        `${doc.id}: secret_refs ${ref.name} points at ${shown(ref.pointer)}, which ${ref.file} does not have (keys: ${keys})`,
      );
    }
    secrets[ref.name] = value;
  }
  return { secrets, source: "secret_refs" };
}

/** A legacy name may be a pointer (`/a/b`): shown as `#/a/b` so it is not redacted as a path. */
function name(n: string): string {
  return n.startsWith("/") ? shown(n) : n;
}

function checkNames(id: string, names: readonly string[] | undefined, declared: string[]): void {
  // The unknown names are not echoed: a caller may have pasted a value into names by mistake.
  const unknown = (names ?? []).filter((n) => !declared.includes(n)).length;
  if (unknown > 0) {
    throw new KbError(
      "invalid_argument",
      `names lists ${unknown} secret(s) ${id} does not declare (declared: ${declared.map(name).join(", ") || "none"})`,
    );
  }
}
