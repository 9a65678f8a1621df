/**
 * The one rule that keeps absolute server paths out of messages shown to clients: each absolute
 * path becomes `…/<last segment>`. Used by the tool error boundary (tools/result.ts scrubPaths)
 * and by the git remote messages that travel in results (sync `last_error`, clone failures).
 */

/**
 * An absolute path in a message: a `/` at the start or after a space, quote, bracket, `=` or `,`
 * (never after `:` — `http://…` stays), up to the next space, quote or bracket.
 */
const ABSOLUTE_PATH = /(?<=^|[\s'"`(<[{=,])\/[^\s'"`()<>[\]{}]*/g;

/** `message` with every absolute path shortened to `…/<last segment>`. */
export function shortenAbsolutePaths(message: string): string {
  return message.replace(ABSOLUTE_PATH, (p) => {
    const last = p.replace(/\/+$/, "").split("/").pop();
    return last ? `…/${last}` : "…";
  });
}
