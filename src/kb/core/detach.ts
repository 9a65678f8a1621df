/**
 * A copy of a string that holds no reference to the string it was cut from. V8 keeps a
 * substring (13 characters and more) as a view of its parent, so one field kept from a parsed
 * file would keep the whole file's text alive: whole-KB passes copy what they keep
 * (docs/decisions.md "Whole-KB passes stream"). Pure.
 */
export function detached(text: string): string {
  return text.length < 13 ? text : Buffer.from(text, "utf8").toString("utf8");
}
