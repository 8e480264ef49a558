/* The version selector of a published site (material draws it once versions.json has arrived) names its
   button "Select version", which leaves out what the button shows: a reader using speech input says the
   words they see ("1.3.0"), and WCAG 2.5.3 asks that the name contain them. The name becomes
   "Select version, now 1.3.0 latest": the words on the button, after what it does. */
(function () {
  "use strict";

  function name(button) {
    var shown = button.textContent.replace(/\s+/g, " ").trim();
    var label = button.getAttribute("aria-label") || "";
    if (shown && label.indexOf(shown) === -1) {
      button.setAttribute("aria-label", (label ? label + ", now " : "") + shown);
    }
  }

  function nameAll() {
    var buttons = document.querySelectorAll(".md-version__current");
    for (var i = 0; i < buttons.length; i++) name(buttons[i]);
    return buttons.length > 0;
  }

  function versioned() {
    var config = document.getElementById("__config");
    try { return Boolean(config && JSON.parse(config.textContent).version); } catch (e) { return false; }
  }

  if (!versioned() || nameAll()) return; // a site built alone has no selector to wait for
  var watcher = new MutationObserver(function () {
    if (nameAll()) watcher.disconnect();
  });
  watcher.observe(document.body, { childList: true, subtree: true });
  window.setTimeout(function () { watcher.disconnect(); }, 30000); // versions.json never came
})();
