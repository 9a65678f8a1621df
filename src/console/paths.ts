/**
 * Console URLs, built in one place so every link is encoded the same way (each path segment
 * percent-encoded; an id keeps its `/`). Pages link only through these.
 */

const seg = (s: string) => encodeURIComponent(s);
const idPath = (id: string) => id.split("/").map(seg).join("/");

export const consoleUrl = {
  home: () => "/",
  signin: () => "/console/signin",
  signout: () => "/console/signout",
  static: (file: string) => `/console/static/${seg(file)}`,
  kb: (kb: string) => `/console/${seg(kb)}`,
  browse: (kb: string, map?: string, from?: string) =>
    withQuery(`/console/${seg(kb)}/browse`, { map, from }),
  concept: (kb: string, id: string) => `/console/${seg(kb)}/c/${idPath(id)}`,
  search: (kb: string, q?: string) => withQuery(`/console/${seg(kb)}/search`, { q }),
  asset: (kb: string, path: string) => `/console/${seg(kb)}/asset/${idPath(path)}`,
  activity: (kb: string) => `/console/${seg(kb)}/activity`,
  history: (kb: string, id: string) => `/console/${seg(kb)}/c/${idPath(id)}/history`,
  commit: (kb: string, sha: string) => `/console/${seg(kb)}/commit/${seg(sha)}`,
  audit: (kb: string) => `/console/${seg(kb)}/audit`,
  conflicts: (kb: string) => `/console/${seg(kb)}/conflicts`,
};

/** `path?k=v&…` with the defined values only. */
export function withQuery(path: string, query: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== "") q.set(k, v);
  const s = q.toString();
  return s === "" ? path : `${path}?${s}`;
}
