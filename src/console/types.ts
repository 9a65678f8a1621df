/**
 * The values a console page works on (src/console/README.md): a request already authenticated
 * (its Viewer), and the reply a page gives. No socket, no HTTP types: src/http adapts them.
 */
import type { Principal } from "../auth/types.js";

/** Who is looking: the same Principal the MCP route builds for the same token. */
export interface Viewer {
  readonly principal: Principal;
  /** For display only: the principal id (never a token). */
  readonly label: string;
  /** True when signed in with a session (auth on); false with auth off (local-admin). */
  readonly signedIn: boolean;
  /**
   * May administer `kb` (resolve its conflicts): a selector-free `rw` rule or admin, decided by
   * the same function whole-KB tools use (auth/decide.ts hasWholeKb).
   */
  isAdmin(kb: string): boolean;
  /** The CSRF token every POST form carries as the `_csrf` field (csrf.ts). */
  readonly csrf: string;
  /** The served KBs this viewer may read, in mount order (the header's KB switcher). */
  readonly kbs: readonly string[];
}

export type ConsoleMethod = "GET" | "HEAD" | "POST";

export interface ConsoleRequest {
  readonly method: ConsoleMethod;
  /** The decoded path (`/console/kb/c/a/b`). */
  readonly path: string;
  /** The page pattern's parameters, decoded (`kb`, `id`, …). */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** The urlencoded body of a POST (CSRF already checked); null for GET/HEAD. */
  readonly form: URLSearchParams | null;
  readonly viewer: Viewer;
}

/** What a page answers. `html` is a whole document (page.ts layout); `text` is text/plain. */
export type ConsoleReply =
  | { readonly status: number; readonly html: string }
  | { readonly redirect: string }
  | { readonly status: number; readonly text: string }
  | {
      readonly status: number;
      readonly bytes: Buffer;
      readonly contentType: string;
      /** Set: served as an attachment with this file name (never rendered inline). */
      readonly attachment?: string;
      /** Cacheable for this many seconds (static files); pages are always no-store. */
      readonly maxAge?: number;
    };
