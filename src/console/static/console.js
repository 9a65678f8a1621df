// Cartographer console: progressive enhancement only (every page works without it). Loaded
// deferred from /console/static (the CSP allows no inline script).

(() => {
  // "/" focuses the search box, as on most code hosts; not while typing in a field.
  document.addEventListener("keydown", (event) => {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (
      target instanceof HTMLElement &&
      target.closest("input, textarea, select, [contenteditable]")
    )
      return;
    const box = document.getElementById("top-q") || document.getElementById("q");
    if (box) {
      event.preventDefault();
      box.focus();
    }
  });
  // Escape closes the KB switcher.
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    for (const d of document.querySelectorAll("details.kb-switch[open]")) d.removeAttribute("open");
  });
})();
