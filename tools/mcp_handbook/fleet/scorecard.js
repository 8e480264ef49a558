/* The scorecard's table: sort by a column (click its header; aria-sort says which and which way) and filter by
   text, state and "a FAIL in this gate". The choices live in the query string (?q=..&state=..&gate=..&sort=..&dir=..),
   written with history.replaceState on every change, and read again on load and on pageshow (Back, Forward, the
   back/forward cache), as the handbook's own filters do: a view can be shared as a link and survives Back.
   Rows are only moved and hidden, never rebuilt: their text was escaped once, when the page was written.
   A browser lays out every shown row of a table again when one moves, so at most data-shown rows (a few hundred)
   are shown at a time, the first of the current order that pass the filters, with a button for the next ones:
   ten thousand servers load, sort and filter in about a second instead of a minute. */
(function () {
  "use strict";

  var form = document.querySelector("form[data-hb-card-filters]");
  var table = document.getElementById(form ? form.getAttribute("data-hb-card-filters") : "");
  if (!form || !table || !table.tBodies.length) return;
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var original = rows.slice();
  var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
  var text = form.querySelector("[data-hb-filter-text]");
  var selects = Array.prototype.slice.call(form.querySelectorAll("select[data-hb-filter]"));
  var count = form.querySelector(".hb-filter-count");
  var empty = document.querySelector(".hb-empty");
  var more = document.querySelector("[data-hb-more]");
  var step = parseInt(table.getAttribute("data-shown"), 10) || 500;
  var limit = step;
  var haystack = null;  // each row's text in lower case, read once, on the first text search
  var sorted = { key: "", dir: "" };
  var order = original.map(function (row, n) { return n; });  // the current order, as indexes into original

  function column(key) {
    for (var i = 0; i < heads.length; i++) {
      if (heads[i].querySelector("button").getAttribute("data-sort") === key) return i;
    }
    return -1;
  }

  function sortValue(row, index, numeric) {
    var cell = row.cells[index];
    var held = cell.getAttribute("data-v");
    if (numeric) {
      var value = parseFloat(held === null ? cell.textContent : held);  // a count cell reads "2/14": 2
      return isNaN(value) ? -1 : value;
    }
    return (held === null ? cell.textContent : held).trim().toLowerCase();
  }

  function sortRows(key, dir) {
    var index = column(key);
    heads.forEach(function (th) { th.setAttribute("aria-sort", "none"); });
    order = original.map(function (row, n) { return n; });
    if (index !== -1 && (dir === "ascending" || dir === "descending")) {
      var numeric = heads[index].getAttribute("data-kind") === "n";
      var keyed = order.map(function (n) { return { n: n, v: sortValue(original[n], index, numeric) }; });
      var sign = dir === "descending" ? -1 : 1;
      keyed.sort(function (a, b) {
        if (a.v < b.v) return -sign;
        if (a.v > b.v) return sign;
        return a.n - b.n;  // stable: equal rows keep the scorecard's order
      });
      order = keyed.map(function (k) { return k.n; });
      heads[index].setAttribute("aria-sort", dir);
      sorted = { key: key, dir: dir };
    } else {
      sorted = { key: "", dir: "" };
    }
    var fragment = document.createDocumentFragment();
    order.forEach(function (n) { fragment.appendChild(original[n]); });
    body.appendChild(fragment);
  }

  function chosen() {
    var out = {};
    selects.forEach(function (s) { if (s.value) out[s.getAttribute("data-hb-filter")] = s.value; });
    return out;
  }

  function keeps(row, filters, needle, n) {
    if (filters.state && row.getAttribute("data-state") !== filters.state) return false;
    if (filters.gate && (row.getAttribute("data-fails") || "").split(" ").indexOf(filters.gate) === -1) return false;
    return !needle || haystack[n].indexOf(needle) !== -1;
  }

  function filterRows() {
    var filters = chosen();
    var needle = text.value.trim().toLowerCase();
    if (needle && haystack === null) haystack = original.map(function (row) { return row.textContent.toLowerCase(); });
    var matched = 0;
    order.forEach(function (n) {
      var row = original[n];
      var keep = keeps(row, filters, needle, n);
      if (keep) matched += 1;
      var show = keep && matched <= limit;
      if (row.hidden === show) row.hidden = !show;
    });
    var total = original.length;
    count.textContent = (matched === total ? total + " servers" : matched + " of " + total + " servers") +
      (matched > limit ? "; the first " + limit + " shown" : "");
    if (more) more.hidden = matched <= limit;
    if (empty) empty.hidden = matched > 0;
  }

  function writeUrl() {
    var params = new URLSearchParams(window.location.search);
    ["q", "state", "gate", "sort", "dir"].forEach(function (k) { params.delete(k); });
    var needle = text.value.trim();
    if (needle) params.set("q", needle);
    var filters = chosen();
    Object.keys(filters).forEach(function (k) { params.set(k, filters[k]); });
    if (sorted.key) { params.set("sort", sorted.key); params.set("dir", sorted.dir === "descending" ? "desc" : "asc"); }
    var query = params.toString();
    var next = window.location.pathname + (query ? "?" + query : "") + window.location.hash;
    if (next !== window.location.pathname + window.location.search + window.location.hash) {
      try { window.history.replaceState(window.history.state, "", next); } catch (e) { /* a browser that refuses it on file:// */ }
    }
  }

  function readUrl() {
    var params = new URLSearchParams(window.location.search);
    text.value = params.get("q") || "";
    selects.forEach(function (s) {
      var value = params.get(s.getAttribute("data-hb-filter")) || "";
      var known = Array.prototype.some.call(s.options, function (o) { return o.value === value; });
      s.value = known ? value : "";
    });
    var dir = params.get("dir") === "desc" ? "descending" : "ascending";
    var key = params.get("sort") || "";
    if (key !== sorted.key || (key && dir !== sorted.dir)) sortRows(key, key ? dir : "");
  }

  function changed() {
    limit = step;
    filterRows();
    writeUrl();
  }

  heads.forEach(function (th) {
    th.querySelector("button").addEventListener("click", function () {
      var key = this.getAttribute("data-sort");
      var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
      sortRows(key, dir);
      filterRows();
      writeUrl();
    });
  });
  form.addEventListener("input", changed);
  form.addEventListener("change", changed);
  form.addEventListener("reset", function () { window.setTimeout(function () { sortRows("", ""); changed(); }, 0); });
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  window.addEventListener("pageshow", function (event) {  // a page back from the back/forward cache runs no script
    if (event.persisted) { readUrl(); filterRows(); }
  });
  if (more) more.addEventListener("click", function () { limit += step; filterRows(); });
  form.hidden = false;
  readUrl();
  filterRows();
})();
