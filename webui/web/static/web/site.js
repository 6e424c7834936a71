// The site's own few lines of script, loaded in <head> (not deferred) so that the page is
// marked as scripted before it is first drawn: on narrow screens the CSS then folds the main
// menu behind its Menu button, which this opens and closes (Escape closes it and gives the
// focus back to the button). Without scripts the menu's links simply wrap, all of them shown.
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  // A box whose content is wider than itself (a wide table on a phone) says it scrolls.
  function markOverflows() {
    for (const box of document.querySelectorAll("main .panel, main .scroll")) {
      box.classList.toggle("overflows", box.scrollWidth > box.clientWidth + 2);
    }
  }

  function start() {
    markOverflows();
    window.addEventListener("resize", markOverflows);
    window.addEventListener("load", markOverflows);
    const bar = document.querySelector(".topbar");
    const toggle = bar && bar.querySelector(".nav-toggle");
    if (!toggle) return;
    const open = (yes) => {
      bar.classList.toggle("open", yes);
      toggle.setAttribute("aria-expanded", String(yes));
    };
    toggle.addEventListener("click", () => open(!bar.classList.contains("open")));
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && bar.classList.contains("open")) {
        open(false);
        toggle.focus();
      }
    });
    // The link of the page shown is marked for screen readers and the eye.
    for (const link of bar.querySelectorAll(".nav a")) {
      if (link.pathname === location.pathname) link.setAttribute("aria-current", "page");
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
