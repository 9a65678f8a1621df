/**
 * Moves a token embedded in a KB's remote URL out of git's argv and config into a file only
 * the credential helper reads (remote-access.ts): `.git/cartographer/remote.token`, mode 0600,
 * inside `.git` so it is never in the work tree nor pushed. `origin` is rewritten without it.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../../common/atomic-write.js";
import { runGit } from "../git/git.js";
import { REMOTE } from "./remote-git.js";
import { urlCredentials } from "./url-credentials.js";

const DIR = join(".git", "cartographer");
const TOKEN = join(DIR, "remote.token");
const USER = join(DIR, "remote.user");

/** Writes the token (and its username) where the helper finds it. */
export async function storeRemoteToken(root: string, user: string, token: string): Promise<void> {
  await mkdir(join(root, DIR), { recursive: true, mode: 0o700 });
  await writeFileAtomic(join(root, TOKEN), `${token}\n`, { mode: 0o600 });
  await writeFileAtomic(join(root, USER), `${user}\n`, { mode: 0o600 });
}

/** The stored token file and username of the KB at `root`, when one was moved there. */
export async function storedRemoteToken(
  root: string,
): Promise<{ tokenFile: string; tokenUser: string } | null> {
  const file = join(root, TOKEN);
  if (!existsSync(file)) return null;
  const user = (await readFile(join(root, USER), "utf8").catch(() => "")).trim();
  return { tokenFile: file, tokenUser: user || "x-access-token" };
}

/**
 * When `origin` embeds a credential: stores it, rewrites `origin` without it and returns the
 * clean URL; otherwise returns `url` unchanged. `moved` says whether anything was done.
 */
export async function moveOriginToken(
  root: string,
  url: string,
): Promise<{ url: string; moved: boolean }> {
  const found = urlCredentials(url);
  if (!found) return { url, moved: false };
  await storeRemoteToken(root, found.user, found.token);
  const r = await runGit(root, ["remote", "set-url", REMOTE, found.url]);
  return r.code === 0 ? { url: found.url, moved: true } : { url, moved: false };
}

/** `moveOriginToken` for a serving KB, with its one warning (the token itself never shown). */
export async function originWithoutToken(
  root: string,
  url: string | null,
  warn: (message: string) => void,
): Promise<string | null> {
  if (url === null) return null;
  const done = await moveOriginToken(root, url);
  if (done.moved)
    warn(
      "its origin URL embedded a credential: moved to the KB's credential helper (.git/cartographer/remote.token, mode 0600) and origin rewritten without it; prefer <git.token_dir>/<kb>.token",
    );
  return done.url;
}
