/**
 * The console's own static files (stylesheet and script), shipped in the package next to the
 * compiled module (src/console/static/ → dist/console/static/, copied by scripts/bundle.ts) and
 * read once. Only the names in FILES are served: nothing under the folder is reachable by path.
 */
import { readFileSync } from "node:fs";

const FILES: Readonly<Record<string, string>> = {
  "console.css": "text/css; charset=utf-8",
  "console.js": "text/javascript; charset=utf-8",
  "gov.css": "text/css; charset=utf-8",
};

const loaded = new Map<string, Buffer>();

/** The bytes and type of static file `name`; null when it is not one of ours. */
export function staticFile(name: string): { bytes: Buffer; contentType: string } | null {
  const contentType = FILES[name];
  if (contentType === undefined) return null;
  let bytes = loaded.get(name);
  if (bytes === undefined) {
    bytes = readFileSync(new URL(`./static/${name}`, import.meta.url));
    loaded.set(name, bytes);
  }
  return { bytes, contentType };
}
