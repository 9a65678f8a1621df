/**
 * The page shell every console page is rendered in: a skip link, a header with the KB switcher
 * and the navigation, the sign-out form when signed in, one `main` landmark. Links the stylesheet
 * and one deferred script, both served from /console/static (the CSP allows no inline script or
 * style: docs/console.md "Security").
 */
import { CSRF_FIELD } from "./csrf.js";
import { html, type Safe } from "./html.js";
import { consoleUrl } from "./paths.js";
import type { Viewer } from "./types.js";

export type NavItem = "home" | "browse" | "search" | "activity" | "audit" | "conflicts";

export interface LayoutArgs {
  /** The document title (the KB name is appended when `kb` is given). */
  title: string;
  viewer: Viewer;
  /** The KB the page is about: the nav links point into it. */
  kb?: string;
  /** The nav item marked current. */
  active?: NavItem;
  body: Safe;
  /** The CSRF token for forms in `body` (defaults to the viewer's). */
  csrf?: string;
}

const NAV: readonly { item: NavItem; label: string; href: (kb: string) => string }[] = [
  { item: "browse", label: "Browse", href: (kb) => consoleUrl.browse(kb) },
  { item: "search", label: "Search", href: (kb) => consoleUrl.search(kb) },
  { item: "activity", label: "Activity", href: consoleUrl.activity },
  { item: "audit", label: "Audit", href: consoleUrl.audit },
  { item: "conflicts", label: "Conflicts", href: consoleUrl.conflicts },
];

/** The whole HTML document of a page. */
export function layout(args: LayoutArgs): string {
  const { viewer, kb, active } = args;
  const current = (item: NavItem) => (item === active ? html` aria-current="page"` : null);
  const navKb = kb ?? (viewer.kbs.length === 1 ? viewer.kbs[0] : undefined);
  const title = kb === undefined ? args.title : `${args.title} · ${kb}`;
  const doc = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Cartographer</title>
<link rel="stylesheet" href="${consoleUrl.static("console.css")}">
<link rel="stylesheet" href="${consoleUrl.static("gov.css")}">
<script src="${consoleUrl.static("console.js")}" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<a class="brand" href="/">Cartographer</a>
${kbSwitcher(viewer, navKb)}
<nav aria-label="Main">
<ul>
<li><a href="/"${current("home")}>Home</a></li>
${navKb === undefined ? null : NAV.map((n) => html`<li><a href="${n.href(navKb)}"${current(n.item)}>${n.label}</a></li>`)}
</ul>
</nav>
${navKb === undefined ? null : searchBox(navKb)}
${viewer.signedIn ? signOut(viewer, args.csrf ?? viewer.csrf) : null}
</header>
<main id="main" tabindex="-1">
${args.body}
</main>
</body>
</html>
`;
  return doc.value;
}

function kbSwitcher(viewer: Viewer, kb: string | undefined): Safe | null {
  if (viewer.kbs.length < 2) return null;
  return html`<details class="kb-switch">
<summary>KB: ${kb ?? "choose"}</summary>
<ul>${viewer.kbs.map((name) => html`<li><a href="${consoleUrl.kb(name)}"${name === kb ? html` aria-current="true"` : null}>${name}</a></li>`)}</ul>
</details>`;
}

function searchBox(kb: string): Safe {
  return html`<form class="top-search" role="search" method="get" action="${consoleUrl.search(kb)}">
<label for="top-q" class="visually-hidden">Search ${kb}</label>
<input id="top-q" name="q" type="search" placeholder="Search ${kb}" autocomplete="off">
<button type="submit">Search</button>
</form>`;
}

function signOut(viewer: Viewer, csrf: string): Safe {
  return html`<form class="signout" method="post" action="${consoleUrl.signout()}">
<span class="who">Signed in as <strong>${viewer.label}</strong></span>
<input type="hidden" name="${CSRF_FIELD}" value="${csrf}">
<button type="submit">Sign out</button>
</form>`;
}

/** A page's error body (404, 403, 400): a heading and one sentence, nothing else disclosed. */
export function errorBody(heading: string, message: string): Safe {
  return html`<h1>${heading}</h1><p>${message}</p><p><a href="/">Back to the home page</a></p>`;
}
