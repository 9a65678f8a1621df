/**
 * Reads src/ with TypeScript's own parser for the architecture tests: every module's imports
 * (static, re-exports and dynamic `import()`), each marked type-only or not, resolved to a
 * src-relative path; and the source text with comments removed, for call-site rules.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const SRC = path.join(REPO_ROOT, "src");

export interface ImportEdge {
  /** The specifier as written. */
  specifier: string;
  /** src-relative target ("kb/ids.ts"), or null for a package / node: builtin. */
  target: string | null;
  /** `import type`, `export type`, or every named binding marked `type`. */
  typeOnly: boolean;
  line: number;
}

export interface SourceModule {
  /** src-relative path with forward slashes, e.g. "kb/apply.ts". */
  file: string;
  text: string;
  imports: ImportEdge[];
  /** String literals in value positions (not import specifiers, not literal types). */
  literals: string[];
}

/** Every .ts file under `dir`, src-relative, sorted. */
export function listSourceFiles(dir: string = SRC): string[] {
  const out: string[] = [];
  const walk = (abs: string) => {
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      const child = path.join(abs, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (entry.name.endsWith(".ts"))
        out.push(path.relative(SRC, child).split(path.sep).join("/"));
    }
  };
  walk(dir);
  return out.sort();
}

function resolveTarget(fromFile: string, specifier: string): string | null {
  if (!specifier.startsWith(".")) return null;
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), specifier));
  // ESM sources import "./x.js" for "./x.ts".
  return joined.replace(/\.js$/, ".ts");
}

function importIsTypeOnly(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false; // `import "./side-effect.js"` runs the module.
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  if (!bindings || ts.isNamespaceImport(bindings)) return false;
  return bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
}

function exportIsTypeOnly(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  if (!clause || !ts.isNamedExports(clause)) return false;
  return clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly);
}

/** Parses one module's text (exported so rules can be tested on synthetic sources). */
export function parseModule(file: string, text: string): SourceModule {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const imports: ImportEdge[] = [];
  const add = (spec: ts.Expression, typeOnly: boolean, node: ts.Node) => {
    if (!ts.isStringLiteralLike(spec)) return;
    imports.push({
      specifier: spec.text,
      target: resolveTarget(file, spec.text),
      typeOnly,
      line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
    });
  };
  const literals: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isLiteralTypeNode(node)) return; // `"a" | "b"`: a type-checked code, not a value
    if (
      (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) &&
      !ts.isImportDeclaration(node.parent) &&
      !ts.isExportDeclaration(node.parent) &&
      !ts.isExternalModuleReference(node.parent) &&
      !(
        ts.isCallExpression(node.parent) &&
        node.parent.expression.kind === ts.SyntaxKind.ImportKeyword
      )
    )
      literals.push(node.text);
    if (ts.isImportDeclaration(node)) add(node.moduleSpecifier, importIsTypeOnly(node), node);
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier)
      add(node.moduleSpecifier, exportIsTypeOnly(node), node);
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0]
    )
      add(node.arguments[0], false, node);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument))
      add(node.argument.literal as ts.Expression, true, node);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { file, text: stripComments(text, source), imports, literals };
}

/** The text with comments blanked out (strings and line numbers kept), so rules never match prose. */
export function stripComments(text: string, source?: ts.SourceFile): string {
  const sf = source ?? ts.createSourceFile("x.ts", text, ts.ScriptTarget.Latest, true);
  const chars = text.split(""); // UTF-16 units, as the parser counts positions
  const blank = (range: ts.CommentRange) => {
    for (let i = range.pos; i < range.end; i++) if (chars[i] !== "\n") chars[i] = " ";
  };
  // Comments are trivia before a token (leading) or after it on the same line (trailing);
  // visiting every node and token, including end-of-file, reaches each one.
  const visit = (node: ts.Node) => {
    for (const r of ts.getLeadingCommentRanges(text, node.pos) ?? []) blank(r);
    for (const r of ts.getTrailingCommentRanges(text, node.end) ?? []) blank(r);
    for (const child of node.getChildren(sf)) visit(child);
  };
  visit(sf);
  return chars.join("");
}

let cache: SourceModule[] | undefined;

/** Every module under src/, parsed once per test file. */
export function loadSources(): SourceModule[] {
  cache ??= listSourceFiles().map((file) =>
    parseModule(file, readFileSync(path.join(SRC, file), "utf8")),
  );
  return cache;
}
