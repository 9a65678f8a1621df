/**
 * A credential written into a remote URL (`https://user:token@host/…`, or GitHub's
 * `https://token@host/…`). Pure: the URL without it, and what the credential helper should
 * answer instead (docs/sync.md "Credentials").
 */
export interface UrlCredentials {
  /** The URL with the userinfo removed. */
  url: string;
  /** Username the helper answers (`x-access-token` when the URL held only a token). */
  user: string;
  token: string;
}

export function urlCredentials(url: string): UrlCredentials | null {
  const m = /^(https?:\/\/)([^@/\s]+)@(.+)$/i.exec(url.trim());
  if (!m) return null;
  const [, scheme, userinfo, rest] = m as unknown as [string, string, string, string];
  const colon = userinfo.indexOf(":");
  const decode = (v: string) => {
    try {
      return decodeURIComponent(v);
    } catch {
      return v;
    }
  };
  const user = colon >= 0 ? decode(userinfo.slice(0, colon)) : "x-access-token";
  const token = decode(colon >= 0 ? userinfo.slice(colon + 1) : userinfo);
  if (!token) return null;
  return { url: `${scheme}${rest}`, user: user || "x-access-token", token };
}
