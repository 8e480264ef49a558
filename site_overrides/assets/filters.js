/* Filterable rule tables: a <form data-hb-filters="TABLE-ID"> with <select data-hb-filter="FIELD">
   (matched against each row's data-FIELD; with data-hb-match="token", against one of its
   space-separated tokens), checkboxes <input data-hb-without="CONDITION"> (a row whose data-without
   names a checked condition applies only to servers that meet it, so it is left out) and an optional
   text box. Fields named in the form's data-hb-general keep the rows that have no value for them
   (a rule with no stack applies to every stack: choosing a stack keeps the general rules plus
   that stack's, and leaves out other stacks').

   The choices live in the page's query string (?gate=security&without=http&q=text), written with
   history.replaceState on every change: a filtered view can be shared as a link, and after Back the
   page re-reads its own URL (on load and on pageshow, which also fires when the page comes back from
   the back/forward cache), so the dropdowns and the table always agree.

   Without JavaScript the form stays hidden and the table is complete. Fires "hb-filtered" on the
   form after each change, with detail.filters {FIELD: value, without: [CONDITION, ...]}. Another
   script that changes what rows hold (the worksheet's status) fires "hb-refilter" on the form to re-apply. */
(function () {
  "use strict";

  var TEXT_PARAM = "q";

  function setup(form) {
    var table = document.getElementById(form.getAttribute("data-hb-filters"));
    if (!table || !table.tBodies.length) return;
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var selects = Array.prototype.slice.call(form.querySelectorAll("select[data-hb-filter]"));
    var boxes = Array.prototype.slice.call(form.querySelectorAll("input[data-hb-without]"));
    var text = form.querySelector("[data-hb-filter-text]");
    var count = form.querySelector(".hb-filter-count");
    var empty = table.parentNode.querySelector(".hb-empty");
    var general = (form.getAttribute("data-hb-general") || "").split(" ").filter(Boolean);
    var ignored = [];

    function wanted() {
      var chosen = {};
      selects.forEach(function (s) { if (s.value) chosen[s.getAttribute("data-hb-filter")] = s.value; });
      var without = boxes.filter(function (b) { return b.checked; }).map(function (b) { return b.getAttribute("data-hb-without"); });
      if (without.length) chosen.without = without;
      return chosen;
    }

    function tokens(row, key) {
      return (row.getAttribute("data-" + key) || "").split(" ").filter(Boolean);
    }

    function keeps(row, key, value) {
      if (key === "without") return !tokens(row, key).some(function (c) { return value.indexOf(c) !== -1; });
      var held = row.getAttribute("data-" + key) || "";
      if (!held && general.indexOf(key) !== -1) return true;
      var select = form.querySelector('select[data-hb-filter="' + key + '"]');
      if (select && select.getAttribute("data-hb-match") === "token") return tokens(row, key).indexOf(value) !== -1;
      return held === value;
    }

    /* ---- the URL holds the choices ---------------------------------------------------- */

    function ownParams() {
      return selects.map(function (s) { return s.getAttribute("data-hb-filter"); }).concat(["without", TEXT_PARAM]);
    }

    function readUrl() {
      var params = new URLSearchParams(window.location.search);
      ignored = [];
      selects.forEach(function (s) {
        var key = s.getAttribute("data-hb-filter");
        var value = params.get(key) || "";
        var known = !value || Array.prototype.some.call(s.options, function (o) { return o.value === value; });
        s.value = known ? value : "";
        if (!known) ignored.push(key + "=" + value);
      });
      var without = params.getAll("without");
      boxes.forEach(function (b) { b.checked = without.indexOf(b.getAttribute("data-hb-without")) !== -1; });
      without.forEach(function (c) {
        if (!boxes.some(function (b) { return b.getAttribute("data-hb-without") === c; })) ignored.push("without=" + c);
      });
      if (text) text.value = params.get(TEXT_PARAM) || "";
      if (without.length && boxes.length) {
        var details = boxes[0].closest("details");
        if (details && boxes.some(function (b) { return b.checked; })) details.open = true;
      }
    }

    function writeUrl(chosen, needle) {
      var params = new URLSearchParams(window.location.search);
      ownParams().forEach(function (key) { params.delete(key); });
      selects.forEach(function (s) {
        var key = s.getAttribute("data-hb-filter");
        if (chosen[key]) params.set(key, chosen[key]);
      });
      (chosen.without || []).forEach(function (c) { params.append("without", c); });
      if (needle) params.set(TEXT_PARAM, needle);
      var query = params.toString();
      var next = window.location.pathname + (query ? "?" + query : "") + window.location.hash;
      if (next !== window.location.pathname + window.location.search + window.location.hash) {
        window.history.replaceState(window.history.state, "", next);
      }
    }

    /* ---- applying ---------------------------------------------------------------------- */

    function apply() {
      var chosen = wanted();
      var typed = text ? text.value.trim() : "";
      var needle = typed.toLowerCase();
      var shown = 0;
      rows.forEach(function (row) {
        var keep = Object.keys(chosen).every(function (k) { return keeps(row, k, chosen[k]); });
        if (keep && needle) keep = row.textContent.toLowerCase().indexOf(needle) !== -1;
        row.hidden = !keep;
        if (keep) shown += 1;
      });
      if (count) {
        count.textContent = shown === rows.length ? rows.length + " rules" : shown + " of " + rows.length + " rules";
        if (ignored.length) count.textContent += " (not a choice here, ignored from the link: " + ignored.join(", ") + ")";
      }
      if (empty) empty.hidden = shown > 0;
      writeUrl(chosen, typed);
      form.dispatchEvent(new CustomEvent("hb-filtered", { bubbles: true, detail: { filters: chosen, shown: shown } }));
    }

    function userChange() {
      ignored = [];
      apply();
    }

    function fromUrl() {
      readUrl();
      apply();
    }

    form.addEventListener("input", userChange);
    form.addEventListener("change", userChange);
    form.addEventListener("reset", function () { window.setTimeout(userChange, 0); });
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    form.addEventListener("hb-refilter", apply);
    window.addEventListener("pageshow", fromUrl);  // Back, Forward, and a return from the back/forward cache
    form.hidden = false;
    fromUrl();
  }

  document.querySelectorAll("form[data-hb-filters]").forEach(setup);
})();
