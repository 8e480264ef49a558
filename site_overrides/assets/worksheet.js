/* The interactive review worksheet (content/worksheet.md, rendered by mcp_handbook.site.worksheet_page).

   Answers (status, evidence, notes) live in localStorage under a key that names the doctrine
   version, so a review survives reloads and a new doctrine starts a fresh one. Exports hold the
   rows the filters show, with the same columns, stamp and JSON shape as `mcp-handbook export
   worksheet` (the format comes from the exporters in the page's JSON block). Import takes a JSON
   export, checks every row first, and applies all of it or nothing. */
(function () {
  "use strict";

  var root = document.getElementById("hb-worksheet");
  if (!root) return;
  var data = JSON.parse(document.getElementById("hb-worksheet-data").textContent);
  var fmt = data.format;
  var ANSWER_FIELDS = ["status", "evidence", "notes"];
  var table = document.getElementById("hb-ws-table");
  var form = root.querySelector("form[data-hb-filters]");
  var message = root.querySelector(".hb-ws-message");
  var progress = root.querySelector(".hb-ws-progress");
  var byId = {};
  var rowsById = {};
  data.rows.forEach(function (row) { byId[row.id] = row; });
  Array.prototype.forEach.call(table.tBodies[0].rows, function (tr) { rowsById[tr.getAttribute("data-id")] = tr; });

  /* ---- state ---------------------------------------------------------------------------- */

  function blank() { return { status: "", evidence: "", notes: "" }; }

  function loadState() {
    try {
      var saved = JSON.parse(window.localStorage.getItem(data.storage_key) || "null");
      if (saved && typeof saved.rows === "object" && saved.rows) return saved;
    } catch (err) { /* unreadable or unavailable storage: start empty, say so on save */ }
    return { doctrine_version: data.doctrine_version, rows: {} };
  }

  var state = loadState();

  function save() {
    try {
      window.localStorage.setItem(data.storage_key, JSON.stringify(state));
    } catch (err) {
      say(["Your answers could not be saved in this browser (" + err.name + "). Export them before leaving."], true);
    }
  }

  function answer(id) {
    var saved = state.rows[id] || {};
    var out = blank();
    ANSWER_FIELDS.forEach(function (f) { if (typeof saved[f] === "string") out[f] = saved[f]; });
    return out;
  }

  function setAnswer(id, values) {
    var next = answer(id);
    Object.keys(values).forEach(function (f) { next[f] = values[f]; });
    if (!next.status && !next.evidence && !next.notes) delete state.rows[id];
    else state.rows[id] = next;
  }

  /* ---- state to page -------------------------------------------------------------------- */

  function show(id) {
    var tr = rowsById[id];
    var a = answer(id);
    Array.prototype.forEach.call(tr.querySelectorAll("input[type=radio]"), function (radio) {
      radio.checked = radio.value === a.status;
    });
    tr.setAttribute("data-answer", a.status);
    tr.querySelector(".hb-print-status").textContent = a.status || "–";
    Array.prototype.forEach.call(tr.querySelectorAll("textarea[data-field]"), function (box) {
      var value = a[box.getAttribute("data-field")];
      if (box.value !== value) box.value = value;
      box.nextElementSibling.textContent = value;
    });
  }

  function visibleIds() {
    return data.rows.map(function (r) { return r.id; }).filter(function (id) { return !rowsById[id].hidden; });
  }

  function showProgress() {
    var ids = visibleIds();
    var counts = {};
    fmt.statuses.forEach(function (s) { counts[s] = 0; });
    var open = 0;
    ids.forEach(function (id) {
      var s = answer(id).status;
      if (s) counts[s] += 1; else open += 1;
    });
    var parts = fmt.statuses.map(function (s) { return counts[s] + " " + s; });
    parts.push(open + " not reviewed");
    progress.textContent = "Showing " + ids.length + " of " + data.rows.length + " rules: " + parts.join(", ") + ".";
  }

  function showAll() {
    Object.keys(rowsById).forEach(show);
    showProgress();
  }

  function say(lines, isError) {
    message.textContent = "";
    message.className = "hb-ws-message" + (isError ? " hb-ws-error" : " hb-ws-ok");
    if (lines.length === 1) {
      message.textContent = lines[0];
      return;
    }
    var head = document.createElement("p");
    head.textContent = lines[0];
    var list = document.createElement("ul");
    lines.slice(1).forEach(function (line) {
      var li = document.createElement("li");
      li.textContent = line;
      list.appendChild(li);
    });
    message.appendChild(head);
    message.appendChild(list);
  }

  /* ---- page to state -------------------------------------------------------------------- */

  table.addEventListener("change", function (event) {
    var input = event.target;
    if (input.type !== "radio") return;
    var id = input.closest("tr").getAttribute("data-id");
    setAnswer(id, { status: input.value });
    save();
    show(id);
    showProgress();
  });

  table.addEventListener("input", function (event) {
    var box = event.target;
    if (box.tagName !== "TEXTAREA") return;
    var values = {};
    values[box.getAttribute("data-field")] = box.value;
    setAnswer(box.closest("tr").getAttribute("data-id"), values);
    box.nextElementSibling.textContent = box.value;
    save();
  });

  window.addEventListener("storage", function (event) {
    if (event.key !== data.storage_key) return;
    state = loadState();
    showAll();
  });

  /* ---- exports: the CLI's formats, rows as filtered ------------------------------------- */

  function pad(n) { return (n < 10 ? "0" : "") + n; }

  function today() {
    var d = new Date();
    return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate());
  }

  function filters() {
    var chosen = {};
    fmt.filter_keys.forEach(function (k) { chosen[k] = []; });
    Array.prototype.forEach.call(form.querySelectorAll("select[data-hb-filter]"), function (s) {
      var key = s.getAttribute("data-hb-filter");
      if (s.value && chosen[key]) chosen[key] = [s.value];
    });
    if (chosen.without) {
      chosen.without = Array.prototype.filter.call(form.querySelectorAll("input[data-hb-without]"), function (b) {
        return b.checked;
      }).map(function (b) { return b.getAttribute("data-hb-without"); });
    }
    return chosen;
  }

  function filtersText(chosen) {
    var parts = fmt.filter_keys.filter(function (k) { return chosen[k].length; }).map(function (k) {
      return k + "=" + chosen[k].join(",");
    });
    return parts.join("; ") || "none";
  }

  function stamp() {
    return { doctrine_version: data.doctrine_version, commit: data.commit, date: today(), filters: filters() };
  }

  function stampCell(st, name) {
    return name === "filters" ? filtersText(st.filters) : String(st[name] === undefined ? "" : st[name]);
  }

  function items() {
    return visibleIds().map(function (id) {
      var row = byId[id];
      var a = answer(id);
      var item = {};
      fmt.columns.forEach(function (c) {
        item[c] = ANSWER_FIELDS.indexOf(c) !== -1 ? a[c] : String(row[c] === undefined ? "" : row[c]);
      });
      return item;
    });
  }

  function csvCell(value) {
    return /[",\n]/.test(value) ? '"' + value.replace(/"/g, '""') + '"' : value;
  }

  function toCsv(rows, st) {
    var header = fmt.columns.concat(fmt.stamp_columns);
    var lines = [header.join(",")];
    rows.forEach(function (item) {
      var cells = fmt.columns.map(function (c) { return item[c]; });
      fmt.stamp_columns.forEach(function (name) { cells.push(stampCell(st, name)); });
      lines.push(cells.map(csvCell).join(","));
    });
    return lines.join("\n") + "\n";
  }

  function mdCell(value) {
    return value.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\r/g, " ").replace(/\n/g, "<br>");
  }

  function toMarkdown(rows, st) {
    var lines = [
      "# MCP server audit worksheet",
      "",
      "- Doctrine version: " + st.doctrine_version,
      "- Commit: " + st.commit,
      "- Date: " + st.date,
      "- Filters: " + filtersText(st.filters),
      "",
      "Status is one of " + fmt.statuses.join(", ") + ". Put what you observed in evidence.",
      "",
      "| " + fmt.columns.join(" | ") + " |",
      "|" + fmt.columns.map(function () { return "---|"; }).join("")
    ];
    rows.forEach(function (item) {
      lines.push("| " + fmt.columns.map(function (c) { return mdCell(item[c]); }).join(" | ") + " |");
    });
    return lines.join("\n") + "\n";
  }

  function toJson(rows, st) {
    var doc = {
      format: fmt.json_format,
      format_version: fmt.json_format_version,
      doctrine_version: st.doctrine_version,
      commit: st.commit,
      date: st.date,
      filters: st.filters,
      statuses: fmt.statuses,
      items: rows
    };
    return JSON.stringify(doc, null, 2) + "\n";
  }

  var EXPORTS = {
    csv: { make: toCsv, type: "text/csv" },
    md: { make: toMarkdown, type: "text/markdown" },
    json: { make: toJson, type: "application/json" }
  };

  function exportAs(kind) {
    var st = stamp();
    var rows = items();
    var text = EXPORTS[kind].make(rows, st);
    var name = "mcp-worksheet-" + data.doctrine_version + "-" + st.date + "." + kind;
    var url = URL.createObjectURL(new Blob([text], { type: EXPORTS[kind].type + ";charset=utf-8" }));
    var link = document.createElement("a");
    link.href = url;
    link.download = name;
    document.body.appendChild(link);
    link.click();
    link.remove();
    window.setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
    say(["Exported " + rows.length + " rows to " + name + "."], false);
  }

  /* ---- import: check everything, then apply all or nothing ------------------------------ */

  function canonicalStatus(value) {
    if (value === "") return "";
    var lower = value.trim().toLowerCase();
    for (var i = 0; i < fmt.statuses.length; i += 1) {
      if (fmt.statuses[i].toLowerCase() === lower) return fmt.statuses[i];
    }
    return null;
  }

  function readRows(doc, file) {
    var errors = [];
    var updates = {};
    var unknown = [];
    doc.items.forEach(function (item, i) {
      var where = file + ": row " + (i + 1);
      if (!item || typeof item !== "object" || Array.isArray(item)) {
        errors.push(where + ": not an object with id, status, evidence and notes");
        return;
      }
      if (typeof item.id !== "string" || !item.id) {
        errors.push(where + ", column id: missing or not text");
        return;
      }
      where += " (" + item.id + ")";
      var values = {};
      ANSWER_FIELDS.forEach(function (f) {
        var v = item[f] === undefined || item[f] === null ? "" : item[f];
        if (typeof v !== "string") errors.push(where + ", column " + f + ": must be text, not " + JSON.stringify(v));
        else values[f] = v;
      });
      if (typeof values.status === "string") {
        values.status = canonicalStatus(values.status);
        if (values.status === null) {
          errors.push(where + ", column status: " + JSON.stringify(item.status) + " is not one of " + fmt.statuses.join(", ") + " or empty");
        }
      }
      if (updates[item.id]) errors.push(where + ", column id: the id appears twice");
      if (!byId[item.id]) unknown.push(item.id);
      else updates[item.id] = values;
    });
    return { errors: errors, updates: updates, unknown: unknown };
  }

  function importText(text, file) {
    var doc;
    try {
      doc = JSON.parse(text);
    } catch (err) {
      say([file + ": not JSON (" + err.message + "); nothing was imported."], true);
      return;
    }
    if (!doc || typeof doc !== "object" || doc.format !== fmt.json_format || !Array.isArray(doc.items)) {
      say([file + ': not a worksheet export (expected "format": "' + fmt.json_format + '" and a list of "items"); nothing was imported.'], true);
      return;
    }
    var read = readRows(doc, file);
    if (read.errors.length) {
      say([read.errors.length + " problem(s) in " + file + "; nothing was imported:"].concat(read.errors.slice(0, 20)), true);
      return;
    }
    Object.keys(read.updates).forEach(function (id) { setAnswer(id, read.updates[id]); });
    save();
    showAll();
    var notes = ["Imported " + Object.keys(read.updates).length + " rows from " + file + "."];
    if (doc.doctrine_version !== data.doctrine_version) {
      notes.push("It was exported from doctrine " + doc.doctrine_version + "; this page is doctrine " + data.doctrine_version + ". Check the rules that changed.");
    }
    if (read.unknown.length) notes.push("Skipped ids that are not in this doctrine: " + read.unknown.join(", ") + ".");
    say([notes.join(" ")], false);
  }

  /* ---- wiring --------------------------------------------------------------------------- */

  root.querySelectorAll("[data-hb-export]").forEach(function (button) {
    button.addEventListener("click", function () { exportAs(button.getAttribute("data-hb-export")); });
  });
  root.querySelector("[data-hb-import]").addEventListener("change", function (event) {
    var file = event.target.files[0];
    if (!file) return;
    var reader = new FileReader();
    reader.onload = function () { importText(String(reader.result), file.name); event.target.value = ""; };
    reader.onerror = function () { say([file.name + ": could not be read; nothing was imported."], true); };
    reader.readAsText(file);
  });
  root.querySelector("[data-hb-print]").addEventListener("click", function () { window.print(); });
  root.querySelector("[data-hb-clear]").addEventListener("click", function () {
    if (!window.confirm("Clear every answer for doctrine " + data.doctrine_version + " in this browser?")) return;
    state = { doctrine_version: data.doctrine_version, rows: {} };
    save();
    showAll();
    say(["All answers cleared."], false);
  });
  form.addEventListener("hb-filtered", showProgress);

  root.querySelector(".hb-ws-actions").hidden = false;
  root.querySelector(".hb-print-stamp").textContent =
    "Doctrine " + data.doctrine_version + " · commit " + data.commit + " · printed " + today();
  showAll();
})();
