/* Filterable rule tables: a <form data-hb-filters="TABLE-ID"> with <select data-hb-filter="FIELD">
   (matched against each row's data-FIELD) and an optional text box. Without JavaScript the form
   stays hidden and the table is complete. Fires "hb-filtered" on the form after each change. */
(function () {
  "use strict";

  function setup(form) {
    var table = document.getElementById(form.getAttribute("data-hb-filters"));
    if (!table || !table.tBodies.length) return;
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var selects = Array.prototype.slice.call(form.querySelectorAll("select[data-hb-filter]"));
    var text = form.querySelector("[data-hb-filter-text]");
    var count = form.querySelector(".hb-filter-count");
    var empty = table.parentNode.querySelector(".hb-empty");

    function wanted() {
      var chosen = {};
      selects.forEach(function (s) { if (s.value) chosen[s.getAttribute("data-hb-filter")] = s.value; });
      return chosen;
    }

    function apply() {
      var chosen = wanted();
      var needle = text ? text.value.trim().toLowerCase() : "";
      var shown = 0;
      rows.forEach(function (row) {
        var keep = Object.keys(chosen).every(function (k) { return row.getAttribute("data-" + k) === chosen[k]; });
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
