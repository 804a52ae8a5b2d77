// Material puts each code block's copy button in a <nav class="md-code__nav"> with no name: one
// navigation landmark per block, all alike (axe: landmark-unique). A button needs no landmark.
(() => {
  const unmark = () => document.querySelectorAll(".md-code__nav:not([role])")
    .forEach(nav => nav.setAttribute("role", "none"));
  new MutationObserver(unmark).observe(document.body, {childList: true, subtree: true});
  unmark();
})();
