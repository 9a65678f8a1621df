/**
 * Console sign-in sessions (docs/decisions.md "Console: sessions hold the bearer in memory"): a
 * server-side store in memory, bounded in count, with an idle and an absolute expiry. The cookie
 * carries a random 32-byte id; the store keys sessions by its SHA-256, so a dump of the store
 * does not yield a usable cookie. The bearer pasted at sign-in is held in memory only (never
 * logged, written or echoed) and the principal is re-resolved from it on every request: an OAuth
 * token past its `exp`, or a static token no longer configured, stops working at once, not at the
 * session's end.
 */
import { createHash, randomBytes } from "node:crypto";

export const SESSION_COOKIE = "carto_session";
export const DEFAULT_IDLE_MS = 8 * 60 * 60 * 1000;
export const DEFAULT_ABSOLUTE_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_MAX_SESSIONS = 1000;

export interface SessionOptions {
  /** Idle expiry (`console.session_idle_timeout`). Default 8 h. */
  idleMs?: number;
  /** Absolute expiry from sign-in (`console.session_lifetime`). Default 24 h. */
  absoluteMs?: number;
  /** Most live sessions; signing in past it drops the least recently used. Default 1000. */
  maxSessions?: number;
  now?: () => number;
}

export interface Session {
  /** SHA-256 of the cookie value (hex): the store's key, and what the CSRF token is bound to. */
  readonly key: string;
  /** The bearer this session re-authenticates with. Memory only; never shown. */
  readonly bearer: string;
  readonly createdAt: number;
  lastSeen: number;
}

export class SessionStore {
  readonly #sessions = new Map<string, Session>();
  readonly #idle: number;
  readonly #absolute: number;
  readonly #max: number;
  readonly #now: () => number;

  constructor(opts: SessionOptions = {}) {
    this.#idle = opts.idleMs ?? DEFAULT_IDLE_MS;
    this.#absolute = opts.absoluteMs ?? DEFAULT_ABSOLUTE_MS;
    this.#max = opts.maxSessions ?? DEFAULT_MAX_SESSIONS;
    this.#now = opts.now ?? Date.now;
  }

  /** A new session for `bearer`; returns the cookie value (the only copy of the raw id). */
  create(bearer: string): { cookie: string; session: Session } {
    this.#sweep();
    while (this.#sessions.size >= this.#max) {
      // Map order is insertion order and get() re-inserts: the first is the least recently used.
      const oldest = this.#sessions.keys().next().value as string;
      this.#sessions.delete(oldest);
    }
    const cookie = randomBytes(32).toString("base64url");
    const now = this.#now();
    const session: Session = { key: keyOf(cookie), bearer, createdAt: now, lastSeen: now };
    this.#sessions.set(session.key, session);
    return { cookie, session };
  }

  /** The live session of cookie value `cookie`, its idle clock restarted; null when none. */
  get(cookie: string): Session | null {
    const key = keyOf(cookie);
    const session = this.#sessions.get(key);
    if (session === undefined) return null;
    const now = this.#now();
    if (this.#expired(session, now)) {
      this.#sessions.delete(key);
      return null;
    }
    session.lastSeen = now;
    this.#sessions.delete(key);
    this.#sessions.set(key, session);
    return session;
  }

  /** Ends the session of `cookie` (sign-out); unknown cookies are ignored. */
  delete(cookie: string): void {
    this.#sessions.delete(keyOf(cookie));
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** The idle and absolute expiry this store applies (ms), for the sign-in page's hint. */
  get limits(): { idleMs: number; absoluteMs: number } {
    return { idleMs: this.#idle, absoluteMs: this.#absolute };
  }

  #expired(s: Session, now: number): boolean {
    return now - s.lastSeen >= this.#idle || now - s.createdAt >= this.#absolute;
  }

  /** Drops expired sessions (at each sign-in: the store never holds more than it must). */
  #sweep(): void {
    const now = this.#now();
    for (const [key, s] of this.#sessions) if (this.#expired(s, now)) this.#sessions.delete(key);
  }
}

function keyOf(cookie: string): string {
  return createHash("sha256").update(cookie).digest("hex");
}

/** The cookie header value of a cookie named `name`, or undefined. */
export function cookieOf(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** `Set-Cookie` for a session (`value` null: the clearing cookie of sign-out). */
export function sessionCookie(value: string | null, secure: boolean): string {
  const base = `${SESSION_COOKIE}=${value ?? ""}; Path=/; HttpOnly; SameSite=Strict`;
  const tail = value === null ? "; Max-Age=0" : "";
  return `${base}${secure ? "; Secure" : ""}${tail}`;
}
