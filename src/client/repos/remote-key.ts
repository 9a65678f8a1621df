/**
 * Repository keys (pure): a git remote URL in any of its usual spellings becomes one
 * machine-independent key `host/owner/name` (`host/group/sub/name` on nested hosts), the same on
 * every machine of a team, so `{{repo:…}}` in shared text names a repository and never a folder
 * (docs/decisions.md "Resolve: repository keys").
 *
 *   git@github.com:owner/name.git          → github.com/owner/name
 *   https://user@GitHub.com/owner/name/    → github.com/owner/name
 *   ssh://git@github.com:22/owner/name.git → github.com/owner/name
 *
 * A local path or `file://` remote has no such key: it names a folder of one machine.
 */
import { UNSAFE_CHAR } from "../../common/paths.js";

const SCHEMES = new Set(["ssh:", "git+ssh:", "ssh+git:", "https:", "http:", "git:"]);
/** `[user@]host:path`, git's scp-like form: no scheme, no slash before the colon. */
const SCP_LIKE = /^(?:[^@/\s]+@)?([^:/\s\\]+):(.+)$/;

/** The key of remote URL `raw`, or undefined when it is not a network remote git knows. */
export function normaliseRemote(raw: string): string | undefined {
  const s = raw.trim();
  if (s === "" || UNSAFE_CHAR.test(s)) return undefined;
  let host: string;
  let rest: string;
  if (s.includes("://")) {
    let url: URL;
    try {
      url = new URL(s);
    } catch {
      return undefined;
    }
    if (!SCHEMES.has(url.protocol)) return undefined;
    host = url.hostname;
    try {
      rest = decodeURIComponent(url.pathname);
    } catch {
      return undefined;
    }
  } else {
    const m = SCP_LIKE.exec(s);
    // A one-letter "host" is a Windows drive (C:path), not a machine.
    if (!m || (m[1] as string).length < 2) return undefined;
    host = m[1] as string;
    rest = m[2] as string;
  }
  host = host.toLowerCase().replace(/^\[|\]$/g, "");
  const segments = rest.split("/").filter((seg) => seg !== "");
  const last = segments.length - 1;
  if (last >= 0) segments[last] = (segments[last] as string).replace(/\.git$/, "");
  if (host === "" || segments.length === 0 || segments.some((seg) => seg === "." || seg === ".."))
    return undefined;
  if (segments[last] === "" || segments.some((seg) => /[\s\\]/.test(seg))) return undefined;
  return [host, ...segments].join("/");
}

/** Outcome of looking a reference up among the known keys. */
export type KeyMatch =
  | { kind: "found"; key: string }
  | { kind: "ambiguous"; keys: string[] }
  | { kind: "none" };

/**
 * The key `ref` names among `keys`: a full key, a remote URL (normalised first), or its trailing
 * segments (`name`, `owner/name`), compared without regard to case (the hosts people use treat
 * owner and name so). An exact key wins over a suffix; several suffix matches are ambiguous.
 */
export function matchKey(keys: Iterable<string>, ref: string): KeyMatch {
  const wanted = referenceSegments(ref);
  if (wanted.length === 0) return { kind: "none" };
  const exact: string[] = [];
  const suffix: string[] = [];
  for (const key of keys) {
    const segs = key.toLowerCase().split("/");
    if (segs.length < wanted.length) continue;
    const tail = segs.slice(segs.length - wanted.length);
    if (!tail.every((seg, i) => seg === wanted[i])) continue;
    (segs.length === wanted.length ? exact : suffix).push(key);
  }
  const hits = exact.length > 0 ? exact : suffix;
  if (hits.length === 1) return { kind: "found", key: hits[0] as string };
  if (hits.length > 1) return { kind: "ambiguous", keys: [...hits].sort() };
  return { kind: "none" };
}

/** The lower-case segments a reference asks for (a URL or scp form is normalised first). */
export function referenceSegments(ref: string): string[] {
  const trimmed = ref.trim();
  const asRemote = /[:@]/.test(trimmed) ? normaliseRemote(trimmed) : undefined;
  const text = asRemote ?? trimmed.replace(/\.git$/, "");
  return text
    .toLowerCase()
    .split("/")
    .filter((seg) => seg !== "");
}
