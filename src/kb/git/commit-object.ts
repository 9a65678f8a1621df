/**
 * The bytes of the commit object `git commit -m <message> --author=<who>` writes (docs/
 * decisions.md "A write commits through objects written in process"), for the cases where they
 * are plain: git's ident rules trim "crud" from the ends of a name or email and drop `<`, `>` and
 * newlines inside; a name or email that would be changed by them is not plain, and the caller
 * lets git commit write it.
 */
import type { GitIdentity } from "../core/types.js";

/** ident.c's crud, trimmed from either end (`.` included, as some git versions trim it). */
const isCrud = (ch: string) => ch.charCodeAt(0) <= 0x20 || `.,:;<>"\\'`.includes(ch);
const isPlain = (v: string) =>
  v !== "" && !isCrud(v.charAt(0)) && !isCrud(v.charAt(v.length - 1)) && !/[<>\n]/.test(v);

export function isPlainIdentity(who: GitIdentity): boolean {
  return isPlain(who.name) && isPlain(who.email);
}

/**
 * A message git commit keeps byte for byte (its default cleanup of a `-m` message strips
 * trailing blanks, leading and trailing empty lines and runs of empty lines); any other one
 * goes through git commit itself.
 */
export function isCleanMessage(message: string): boolean {
  if (message === "" || message.includes("\r") || message.includes("\0")) return false;
  const lines = message.split("\n");
  if (lines[0] === "" || lines[lines.length - 1] === "") return false;
  return lines.every(
    (line, i) => !/[ \t\v\f]$/.test(line) && !(line === "" && lines[i - 1] === ""),
  );
}

/** git's default date: "<seconds since the epoch> <±hhmm>", in this process's time zone. */
export function gitDate(at: Date): string {
  const east = -at.getTimezoneOffset();
  const minutes = Math.abs(east);
  const hhmm = String(Math.floor(minutes / 60) * 100 + (minutes % 60)).padStart(4, "0");
  return `${Math.floor(at.getTime() / 1000)} ${east < 0 ? "-" : "+"}${hhmm}`;
}

export interface CommitFields {
  tree: string;
  parent: string;
  author: GitIdentity;
  committer: GitIdentity;
  /** gitDate(): git takes one time for both. */
  date: string;
  /** Clean (isCleanMessage): git ends it with a newline. */
  message: string;
}

export function commitBody(c: CommitFields): Buffer {
  return Buffer.from(
    `tree ${c.tree}\nparent ${c.parent}\n` +
      `author ${c.author.name} <${c.author.email}> ${c.date}\n` +
      `committer ${c.committer.name} <${c.committer.email}> ${c.date}\n\n${c.message}\n`,
    "utf8",
  );
}
