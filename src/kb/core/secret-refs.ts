/**
 * The pure rules of SOPS secrets (D44/D104 of the Go implementation; docs/migrating-from-go.md
 * "Services and secrets"): which paths may hold encrypted files, how a concept declares the
 * values it may resolve (`secret_refs`, legacy `secrets_source`), how decrypted YAML becomes
 * RFC 6901 JSON Pointers, and the `sops set` selector of a pointer. No I/O: the sops shell is
 * sops.ts. Nothing here ever puts a secret VALUE into an error message.
 */
import { isMap, isScalar, isSeq, type Node, parseDocument, type Scalar } from "yaml";
import { KbError } from "../../common/errors.js";
import { normalizeRelPath } from "../../common/paths.js";
import type { Frontmatter } from "./types.js";

/** Where encrypted files live: `secrets/<…>.sops.yaml`, inside the KB. */
export const SECRETS_DIR = "secrets";
const SOPS_SUFFIX = ".sops.yaml";
const REF_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** One declared secret: `NAME=secrets/file.sops.yaml#/json/pointer`. */
export interface SecretRef {
  name: string;
  file: string;
  pointer: string;
}

/** What a concept declares: named refs (least privilege) or a whole legacy file. */
export type SecretDeclaration =
  | { kind: "refs"; refs: SecretRef[] }
  | { kind: "source"; file: string };

/** The normalized path of an encrypted file; `invalid_argument` unless `secrets/…*.sops.yaml`. */
export function secretsPath(path: string, what = "path"): string {
  const norm = normalizeRelPath(path, what);
  if (!norm.startsWith(`${SECRETS_DIR}/`) || !norm.endsWith(SOPS_SUFFIX)) {
    throw new KbError(
      "invalid_argument",
      `${what} "${norm}" must name an encrypted file under ${SECRETS_DIR}/ ending in ${SOPS_SUFFIX}`,
    );
  }
  return norm;
}

function badRef(entry: string): KbError {
  return new KbError(
    "invalid_argument",
    `invalid secret_refs entry "${entry}": write NAME=secrets/<file>.sops.yaml#/json/pointer (NAME: letters, digits, _)`,
  );
}

/** Parses one `secret_refs` entry. */
export function parseSecretRef(entry: string): SecretRef {
  const eq = entry.indexOf("=");
  const hash = entry.indexOf("#", eq + 1);
  if (eq <= 0 || hash <= eq + 1 || hash === entry.length - 1) throw badRef(entry);
  const name = entry.slice(0, eq);
  const file = entry.slice(eq + 1, hash);
  const pointer = entry.slice(hash + 1);
  if (!REF_NAME.test(name) || !pointer.startsWith("/") || file.trim() !== file) throw badRef(entry);
  try {
    return { name, file: secretsPath(file, "secret_refs file"), pointer };
  } catch {
    throw badRef(entry);
  }
}

/**
 * What `frontmatter` declares: `secret_refs` (a list, names unique) wins; else `secrets_source`
 * (the whole file, Go's legacy form); else `invalid_argument` naming both keys.
 */
export function secretDeclaration(frontmatter: Frontmatter, id: string): SecretDeclaration {
  const rawRefs = frontmatter.secret_refs;
  if (rawRefs !== undefined && rawRefs !== null) {
    const entries = Array.isArray(rawRefs) ? rawRefs : [rawRefs];
    if (entries.length === 0 || entries.some((e) => typeof e !== "string")) {
      throw new KbError(
        "invalid_argument",
        `${id}: secret_refs must be a non-empty list of NAME=secrets/<file>.sops.yaml#/json/pointer`,
      );
    }
    const refs = (entries as string[]).map(parseSecretRef);
    const seen = new Set<string>();
    for (const ref of refs) {
      if (seen.has(ref.name))
        throw new KbError("invalid_argument", `${id}: secret_refs names ${ref.name} twice`);
      seen.add(ref.name);
    }
    return { kind: "refs", refs };
  }
  const source = frontmatter.secrets_source;
  if (typeof source === "string" && source !== "") {
    return { kind: "source", file: secretsPath(source, `${id}: secrets_source`) };
  }
  throw new KbError(
    "invalid_argument",
    `${id} declares no secrets: add secret_refs (NAME=secrets/<file>.sops.yaml#/pointer) or secrets_source to its frontmatter`,
  );
}

/**
 * A pointer as messages show it: in its URI-fragment form (`#/db/password`, RFC 6901 §6), which
 * the error renderer cannot mistake for an absolute server path and redact.
 */
export function shown(pointer: string): string {
  return `#${pointer}`;
}

function escapeToken(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

function unescapeToken(token: string): string {
  if (/~(?![01])/.test(token)) {
    throw new KbError("invalid_argument", `JSON Pointer token "${token}" has a bad ~ escape`);
  }
  return token.replaceAll("~1", "/").replaceAll("~0", "~");
}

/** The reference tokens of a JSON Pointer (`/a/b~1c` → `a`, `b/c`). */
export function pointerTokens(pointer: string): string[] {
  if (!pointer.startsWith("/")) {
    throw new KbError(
      "invalid_argument",
      `key "${pointer}" must be a JSON Pointer beginning with a slash, like the pointers of secret_refs`,
    );
  }
  return pointer.slice(1).split("/").map(unescapeToken);
}

function rootMap(text: string, what: string): Node {
  // failsafe: every scalar stays the text written (007, true, 1.0), as sops and Go read it.
  const doc = parseDocument(text, { uniqueKeys: true, schema: "failsafe" });
  // Messages name the file only: a YAML error quotes the offending line, which may be a value.
  if (doc.errors.length > 0) throw new KbError("invalid_argument", `${what} is not valid YAML`);
  if (!isMap(doc.contents))
    throw new KbError("invalid_argument", `${what}: root must be a mapping`);
  return doc.contents;
}

/**
 * Every scalar leaf of decrypted YAML keyed by its JSON Pointer (`/db/0/password`); null is "".
 * A top-level leaf is ALSO reachable under its bare key (`password`), as Go's flat files were.
 */
export function flattenSecrets(text: string, what: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (node: unknown, ptr: string): void => {
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? pair.key.value : undefined;
        if (typeof key !== "string")
          throw new KbError("invalid_argument", `${what}: mapping keys must be strings`);
        walk(pair.value, `${ptr}/${escapeToken(key)}`);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => {
        walk(item, `${ptr}/${i}`);
      });
    } else if (isScalar(node) || node === null) {
      out.set(ptr, isScalar(node) && !isNull(node) ? String(node.value) : "");
    } else {
      throw new KbError("invalid_argument", `${what}: aliases and tags are not supported`);
    }
  };
  walk(rootMap(text, what), "");
  return out;
}

const NULL_WORDS = new Set(["", "~", "null", "Null", "NULL"]);

/** YAML's null, read under the failsafe schema (plain `~`, `null`, or nothing at all). */
function isNull(node: Scalar): boolean {
  return node.type === "PLAIN" && NULL_WORDS.has(String(node.value ?? ""));
}

/** The names a whole legacy file resolves to: bare keys at the top level, pointers deeper. */
export function legacyNames(values: Map<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [ptr, value] of [...values].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const name = ptr.indexOf("/", 1) === -1 ? unescapeToken(ptr.slice(1)) : ptr;
    out[name] = value;
  }
  return out;
}

/** True when the encrypted YAML carries a `sops` metadata mapping (a file sops wrote). */
export function hasSopsMetadata(encrypted: string, what: string): boolean {
  const root = rootMap(encrypted, what);
  return isMap(root) && isMap(root.get("sops", true));
}

/**
 * The `sops set` selector (`["a"]["b"][0]`) of `pointer` in the encrypted document. The last
 * mapping key may be new (secret_set adds it); anything else must exist.
 */
export function sopsSelector(encrypted: string, pointer: string, what: string): string {
  const tokens = pointerTokens(pointer);
  let node: unknown = rootMap(encrypted, what);
  let selector = "";
  tokens.forEach((token, i) => {
    const last = i === tokens.length - 1;
    if (isMap(node)) {
      if (i === 0 && token === "sops")
        throw new KbError("invalid_argument", `key ${shown(pointer)} names sops metadata`);
      selector += `[${JSON.stringify(token)}]`;
      const child = node.get(token, true);
      if (child === undefined && !last)
        throw new KbError("invalid_argument", `key ${shown(pointer)}: ${what} has no "${token}"`);
      node = child;
    } else if (isSeq(node)) {
      const index = /^(0|[1-9][0-9]*)$/.test(token) ? Number(token) : -1;
      if (index < 0 || index >= node.items.length)
        throw new KbError(
          "invalid_argument",
          `key ${shown(pointer)}: no index ${token} in ${what}`,
        );
      selector += `[${index}]`;
      node = node.items[index];
    } else {
      throw new KbError(
        "invalid_argument",
        `key ${shown(pointer)} goes through a value in ${what}`,
      );
    }
  });
  if (isMap(node) || isSeq(node))
    throw new KbError(
      "invalid_argument",
      `key ${shown(pointer)} names a mapping or list, not a value`,
    );
  return selector;
}

/** True when the leaf at `pointer` of the encrypted YAML is a sops ciphertext (`ENC[…]`). */
export function isEncryptedAt(encrypted: string, pointer: string, what: string): boolean {
  let node: unknown = rootMap(encrypted, what);
  for (const token of pointerTokens(pointer)) {
    if (isMap(node)) node = node.get(token, true);
    else if (isSeq(node)) node = node.items[Number(token)];
    else return false;
  }
  return isScalar(node) && typeof node.value === "string" && node.value.startsWith("ENC[");
}
