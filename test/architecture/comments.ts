/**
 * The comments of a module, read with TypeScript's parser so that `//` inside a string, a
 * regular expression or a template is never taken for one. Each comment comes back as prose:
 * the `//`, `/*`, `*` and `*\/` markers removed, lines joined by single spaces, so a phrase
 * wrapped across comment lines reads as one.
 */
import ts from "typescript";

export interface Comment {
  /** 1-based line the comment starts on. */
  line: number;
  /** The comment's words, markers removed, whitespace collapsed. */
  text: string;
}

function prose(raw: string): string {
  const body = raw.startsWith("//") ? raw.slice(2) : raw.slice(2, -2);
  return body
    .split("\n")
    .map((l) => l.replace(/^\s*\/\/\s?/, "").replace(/^\s*\*(?!\/)\s?/, ""))
    .join(" ")
    .replace(/^\*/, "")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * Every comment of `text` in source order. Comments are trivia at node boundaries: before a node
 * (its leading trivia) or after one (trailing on its line, or leading the next token, such as a
 * closing brace), or inside an empty block. Walking nodes without materialising every token
 * (getChildren) keeps a pass over the whole tree at a fraction of a second.
 */
export function commentsOf(file: string, text: string): Comment[] {
  const kind = /\.m?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
  const seen = new Map<number, ts.CommentRange>();
  const add = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) seen.set(r.pos, r);
  };
  const visit = (node: ts.Node) => {
    add(ts.getLeadingCommentRanges(text, node.pos));
    add(ts.getTrailingCommentRanges(text, node.end));
    add(ts.getLeadingCommentRanges(text, node.end));
    if (text[node.end] === ",") add(ts.getTrailingCommentRanges(text, node.end + 1)); // `a, // why`
    // An empty block, object or list (`catch { // why }`): the comment follows its opening token.
    const start = node.getStart(sf);
    if ("{([".includes(text[start] ?? "")) add(ts.getLeadingCommentRanges(text, start + 1));
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return [...seen.values()]
    .sort((a, b) => a.pos - b.pos)
    .map((r) => ({
      line: sf.getLineAndCharacterOfPosition(r.pos).line + 1,
      text: prose(text.slice(r.pos, r.end)),
    }));
}
