/** What a tool call made by the console comes back as (kbs.ts), and the error pages render. */

/** A failed call: the tool's error code (`not_found`, `forbidden`, `invalid_argument`, …). */
export interface ToolFailure {
  readonly ok: false;
  readonly code: string;
  readonly message: string;
}

export type ToolOutcome<T> = { readonly ok: true; readonly value: T } | ToolFailure;

/** A failure a page does not handle itself; the dispatcher renders it (404 for not_found). */
export class ConsoleError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
