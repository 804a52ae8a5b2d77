// Material puts each code block's copy button in a <nav class="md-code__nav"> with no name: one
// navigation landmark per block, all alike (axe: landmark-unique). A button needs no landmark. The
// theme adds it to the block's <pre> as the block comes into view (content.lazy): each <pre> is
// watched for that alone (one observer over the whole page made every change the theme makes cost more).
(() => {
  const unmark = node => node.classList?.contains("md-code__nav") && node.setAttribute("role", "none");
  const added = new MutationObserver(records => records.forEach(r => r.addedNodes.forEach(unmark)));
  document.querySelectorAll("pre").forEach(pre => added.observe(pre, {childList: true}));
})();
