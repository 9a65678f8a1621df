import { SettingError } from "../../common/errors.js";
import type { Settings } from "./pick.js";
import type { FileConfig } from "./schema.js";
import type { ServeFlags } from "./types.js";

/** `--public-url` > CARTOGRAPHER_PUBLIC_URL > `public_url`: an absolute http(s) URL, no query. */
export function resolvePublicUrl(
  settings: Settings,
  flags: ServeFlags,
  file: FileConfig,
): string | null {
  const picked = settings.pick({
    flag: ["--public-url", flags.publicUrl],
    env: "CARTOGRAPHER_PUBLIC_URL",
    key: ["public_url", file.public_url],
  });
  if (!picked) return null;
  const { value, source: key } = picked;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new SettingError(`${key}: '${value}' is not a URL; use e.g. https://kb.example.com`);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash) {
    throw new SettingError(
      `${key}: '${value}' must be an http(s) URL without query or fragment, e.g. https://kb.example.com`,
    );
  }
  return url.href.replace(/\/$/, "");
}
