/**
 * The ONE place a Content-Type header is interpreted (design.md P3): by its parsed media type,
 * never by substring, so `application/json; charset=utf-8` passes and
 * `text/plain; a=application/json` does not.
 */

/** Lower-cased `type/subtype` of a Content-Type value, or null when missing or ambiguous. */
export function mediaType(header: string | undefined): string | null {
  if (header === undefined) return null;
  const [essence = "", ...params] = header.split(";");
  const type = essence.trim().toLowerCase();
  // A comma means several joined headers: ambiguous, so no media type at all.
  if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(type) || params.join(";").includes(","))
    return null;
  return type;
}

export function isJsonContentType(header: string | undefined): boolean {
  return mediaType(header) === "application/json";
}
