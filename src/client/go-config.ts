/**
 * The Go client's `.cartographer.yaml` (pure): same path, another shape — `agents: [claude, …]`
 * with one top-level `kbs:` binding, `auth: true|false` beside `token_env`, `trust: true|false`
 * for every KB of the server, `mcp_approvals: {kb: {name: {content_hash, approved_at}}}`.
 * `cartographer upgrade-repair` converts it (docs/migrating-from-go.md "The client yaml");
 * loading one otherwise is an error that says so, never a silently empty configuration.
 */
type Raw = Record<string, unknown>;

const isMap = (v: unknown): v is Raw => v !== null && typeof v === "object" && !Array.isArray(v);

/** True when `raw` (the parsed yaml) is in the Go client's shape and not ours. */
export function isGoClientConfig(raw: unknown): boolean {
  if (!isMap(raw) || "providers" in raw) return false;
  return (
    Array.isArray(raw.agents) ||
    typeof raw.trust === "boolean" ||
    typeof raw.auth === "boolean" ||
    isMap(raw.mcp_approvals)
  );
}

export interface ConvertedConfig {
  /** Our yaml's plain value: keys the conversion does not own are carried over as they are. */
  value: Raw;
  /** One line per change a user should know about (consent not carried over, a dropped name). */
  notes: string[];
}

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * Our shape of a Go client yaml (see the module comment); `raw` must pass isGoClientConfig.
 * `isProvider` is config.ts's isProviderId (passed in: config.ts imports this module).
 */
export function convertGoClientConfig(
  raw: Raw,
  isProvider: (name: string) => boolean,
): ConvertedConfig {
  const { agents, kbs, auth, trust, mcp_approvals, ...rest } = raw;
  const notes: string[] = [];
  const value: Raw = { ...rest };
  const binding = Array.isArray(kbs) && kbs.length > 0 ? { kbs: kbs.map(String) } : {};
  const providers: Raw[] = [];
  for (const name of Array.isArray(agents) ? agents.map(String) : []) {
    if (isProvider(name)) providers.push({ name, ...binding });
    else notes.push(`agents: "${name}" is not a provider here; left out`);
  }
  value.providers = providers;
  if (auth === false && value.token_env !== undefined) {
    // Go sent no Authorization header with auth: false; here that is an absent token_env.
    delete value.token_env;
    notes.push("auth: false → token_env removed (no Authorization header, as before)");
  }
  if (trust !== false) {
    // Go's default (absent) was true as well: consent to every KB, which this client never
    // assumes (docs/decisions.md "Client").
    notes.push(
      "trust: Go's consent to every KB's unsigned artifacts is not carried over; run cartographer trust <kb> for each KB you trust",
    );
  }
  const approvals: Raw[] = [];
  for (const [kb, byName] of Object.entries(isMap(mcp_approvals) ? mcp_approvals : {})) {
    for (const [name, a] of Object.entries(isMap(byName) ? byName : {})) {
      const hash = isMap(a) ? a.content_hash : undefined;
      if (typeof hash === "string" && HEX64.test(hash))
        approvals.push({ kb, name, content_hash: hash });
      else notes.push(`mcp_approvals.${kb}.${name}: no usable content_hash; approve it again`);
    }
  }
  if (approvals.length > 0) value.approvals = approvals;
  return { value, notes };
}
