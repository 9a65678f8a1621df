import { SettingError } from "../../common/errors.js";
import type { ServeFlags } from "./resolve.js";
import type { FileConfig } from "./schema.js";

/** `--public-url` > CARTOGRAPHER_PUBLIC_URL > `public_url`: an absolute http(s) URL, no query. */
export function resolvePublicUrl(
  flags: ServeFlags,
  env: Record<string, string | undefined>,
  file: FileConfig,
): string | null {
  const [key, value] =
    flags.publicUrl !== undefined
      ? ["--public-url", flags.publicUrl]
      : env.CARTOGRAPHER_PUBLIC_URL !== undefined
        ? ["CARTOGRAPHER_PUBLIC_URL", env.CARTOGRAPHER_PUBLIC_URL]
        : ["public_url", file.public_url];
  if (value === undefined || value === "") return null;
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
