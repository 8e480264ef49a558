/* Filterable rule tables: a <form data-hb-filters="TABLE-ID"> with <select data-hb-filter="FIELD">
   (matched against each row's data-FIELD; with data-hb-match="token", against one of its
   space-separated tokens), checkboxes <input data-hb-without="CONDITION"> (a row whose data-without
   names a checked condition applies only to servers that meet it, so it is left out) and an optional
   text box. Without JavaScript the form stays hidden and the table is complete. Fires "hb-filtered"
   on the form after each change, with detail.filters {FIELD: value, without: [CONDITION, ...]}. */
(function () {
  "use strict";

  function setup(form) {
    var table = document.getElementById(form.getAttribute("data-hb-filters"));
    if (!table || !table.tBodies.length) return;
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var selects = Array.prototype.slice.call(form.querySelectorAll("select[data-hb-filter]"));
    var boxes = Array.prototype.slice.call(form.querySelectorAll("input[data-hb-without]"));
    var text = form.querySelector("[data-hb-filter-text]");
    var count = form.querySelector(".hb-filter-count");
    var empty = table.parentNode.querySelector(".hb-empty");

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
      var select = form.querySelector('select[data-hb-filter="' + key + '"]');
      if (select && select.getAttribute("data-hb-match") === "token") return tokens(row, key).indexOf(value) !== -1;
      return row.getAttribute("data-" + key) === value;
    }

    function apply() {
      var chosen = wanted();
      var needle = text ? text.value.trim().toLowerCase() : "";
      var shown = 0;
      rows.forEach(function (row) {
        var keep = Object.keys(chosen).every(function (k) { return keeps(row, k, chosen[k]); });
        if (keep && needle) keep = row.textContent.toLowerCase().indexOf(needle) !== -1;
        row.hidden = !keep;
        if (keep) shown += 1;
      });
      if (count) count.textContent = shown === rows.length ? rows.length + " rules" : shown + " of " + rows.length + " rules";
      if (empty) empty.hidden = shown > 0;
      form.dispatchEvent(new CustomEvent("hb-filtered", { bubbles: true, detail: { filters: chosen, shown: shown } }));
    }

    form.addEventListener("input", apply);
    form.addEventListener("change", apply);
    form.addEventListener("reset", function () { window.setTimeout(apply, 0); });
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    form.hidden = false;
    apply();
  }

  document.querySelectorAll("form[data-hb-filters]").forEach(setup);
})();
