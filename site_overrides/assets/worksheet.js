/* The interactive review worksheet (content/worksheet.md, rendered by mcp_handbook.site.worksheet_page).

   A review (status, evidence and notes per rule, plus what is reviewed: server name, server version,
   reviewer) lives in localStorage under a key that names the doctrine version, so it survives reloads.
   Answers stored under an earlier version are found on load and offered for carrying over, with the
   rules that changed since (the build embeds that list), or for export first; nothing is deleted.

   Exports always hold every row, answered or not: the filters decide what the table shows, not what a
   file keeps. Their stamp records the filters in view when exported. Columns, stamp and JSON shape are
   those of `mcp-handbook export worksheet` (the format comes from the exporters in the page's JSON
   block). Import takes a JSON export, checks every row first, and applies all of it or nothing. Clear
   says how many answers are not in the last export, and can be undone.

   Keys stay inside the worksheet: with any control in it focused, letter keys do not reach the theme's
   shortcuts (p, n, s, f, /), and P, F, N or - set the focused row's status. */
(function () {
  "use strict";

  var root = document.getElementById("hb-worksheet");
  if (!root) return;
  var data = JSON.parse(document.getElementById("hb-worksheet-data").textContent);
  var fmt = data.format;
  var ANSWER_FIELDS = ["status", "evidence", "notes"];
  var STATUS_KEYS = { "-": "" };
  fmt.statuses.forEach(function (s) { STATUS_KEYS[s.charAt(0).toLowerCase()] = s; });  // p Pass, f Fail, n N/A
  var table = document.getElementById("hb-ws-table");
  var form = root.querySelector("form[data-hb-filters]");
  var message = root.querySelector(".hb-ws-message");
  var progress = root.querySelector(".hb-ws-progress");
  var earlierBox = root.querySelector(".hb-ws-earlier");
  var reviewBoxes = Array.prototype.slice.call(root.querySelectorAll("input[data-hb-review]"));
  var byId = {};
  var rowsById = {};
  var inView = {};
  data.rows.forEach(function (row) { byId[row.id] = row; });
  Array.prototype.forEach.call(table.tBodies[0].rows, function (tr) { rowsById[tr.getAttribute("data-id")] = tr; });

  /* ---- state ---------------------------------------------------------------------------- */

  function fresh() { return { doctrine_version: data.doctrine_version, rows: {}, review: {} }; }

  function readState(key) {
    try {
      var saved = JSON.parse(window.localStorage.getItem(key) || "null");
      if (saved && typeof saved.rows === "object" && saved.rows) {
        if (!saved.review || typeof saved.review !== "object") saved.review = {};
        return saved;
      }
    } catch (err) { /* unreadable or unavailable storage: start empty, say so on save */ }
    return null;
  }

  function writeState(key, value) {
    try {
      window.localStorage.setItem(key, JSON.stringify(value));
      return true;
    } catch (err) {
      say(["Your answers could not be saved in this browser (" + err.name + "). Export them before leaving."], true);
      return false;
    }
  }

  var state = readState(data.storage_key) || fresh();

  function save() { return writeState(data.storage_key, state); }

  function blank() { return { status: "", evidence: "", notes: "" }; }

  function answerIn(rows, id) {
    var saved = rows[id] || {};
    var out = blank();
    ANSWER_FIELDS.forEach(function (f) { if (typeof saved[f] === "string") out[f] = saved[f]; });
    return out;
  }

  function answer(id) { return answerIn(state.rows, id); }

  function answered(rows) {
    return Object.keys(rows).filter(function (id) {
      var a = answerIn(rows, id);
      return a.status || a.evidence || a.notes;
    });
  }

  function setAnswer(id, values) {
    var next = answer(id);
    Object.keys(values).forEach(function (f) { next[f] = values[f]; });
    if (!next.status && !next.evidence && !next.notes) delete state.rows[id];
    else state.rows[id] = next;
  }

  function copyRows(rows) { return JSON.parse(JSON.stringify(rows)); }

  function counted(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }

  /* ---- what is reviewed ------------------------------------------------------------------ */

  function oneLine(value) {
    return String(value || "").replace(/\s+/g, " ").trim().slice(0, fmt.review_limit).trim();
  }

  function review() {
    var out = {};
    fmt.review_fields.forEach(function (name) { out[name] = oneLine(state.review[name]); });
    return out;
  }

  function showReview() {
    reviewBoxes.forEach(function (box) {
      var value = state.review[box.getAttribute("data-hb-review")] || "";
      if (box.value !== value) box.value = value;
    });
    showPrintHead();
  }

  reviewBoxes.forEach(function (box) {
    box.addEventListener("input", function () {
      state.review[box.getAttribute("data-hb-review")] = box.value;
      save();
      showPrintHead();
    });
  });

  /* ---- state to page -------------------------------------------------------------------- */

  function show(id) {
    var tr = rowsById[id];
    var a = answer(id);
    Array.prototype.forEach.call(tr.querySelectorAll("input[type=radio]"), function (radio) {
      radio.checked = radio.value === a.status;
    });
    tr.setAttribute("data-status", a.status || data.unreviewed);
    tr.querySelector(".hb-print-status").textContent = a.status || "–";
    Array.prototype.forEach.call(tr.querySelectorAll("textarea[data-field]"), function (box) {
      var value = a[box.getAttribute("data-field")];
      if (box.value !== value) box.value = value;
      box.nextElementSibling.textContent = value;
    });
  }

  function allIds() { return data.rows.map(function (r) { return r.id; }); }

  function visibleIds() { return allIds().filter(function (id) { return !rowsById[id].hidden; }); }

  function countStatuses(ids) {
    var counts = {};
    fmt.statuses.forEach(function (s) { counts[s] = 0; });
    var open = 0;
    ids.forEach(function (id) {
      var s = answer(id).status;
      if (s) counts[s] += 1; else open += 1;
    });
    var parts = fmt.statuses.map(function (s) { return counts[s] + " " + s; });
    parts.push(open + " not reviewed");
    return { parts: parts, open: open };
  }

  function showProgress() {
    var ids = visibleIds();
    var shown = countStatuses(ids);
    var all = countStatuses(allIds());
    var text = "Showing " + ids.length + " of " + data.rows.length + " rules: " + shown.parts.join(", ") + ".";
    if (ids.length !== data.rows.length) text += " All rules: " + (data.rows.length - all.open) + " of " + data.rows.length + " reviewed.";
    progress.textContent = text;
  }

  function refilter() { form.dispatchEvent(new CustomEvent("hb-refilter")); }

  function showAll() {
    Object.keys(rowsById).forEach(show);
    showReview();
    showProgress();
  }

  function say(lines, isError, action) {
    message.textContent = "";
    message.className = "hb-ws-message" + (isError ? " hb-ws-error" : " hb-ws-ok");
    var head = document.createElement("p");
    head.textContent = lines[0];
    message.appendChild(head);
    if (action) {
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = action.label;
      button.setAttribute("data-hb-action", action.name);
      button.addEventListener("click", action.run);
      head.appendChild(document.createTextNode(" "));
      head.appendChild(button);
    }
    if (lines.length > 1) {
      var list = document.createElement("ul");
      lines.slice(1).forEach(function (line) {
        var li = document.createElement("li");
        li.textContent = line;
        list.appendChild(li);
      });
      message.appendChild(list);
    }
  }

  /* ---- page to state -------------------------------------------------------------------- */

  function setStatus(id, status) {
    setAnswer(id, { status: status });
    save();
    show(id);
    showProgress();
    if (!earlierBox.hidden) offerEarlier();  // its counts of what is already answered here
  }

  table.addEventListener("change", function (event) {
    var input = event.target;
    if (input.type !== "radio") return;
    setStatus(input.closest("tr").getAttribute("data-id"), input.value);
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
    state = readState(data.storage_key) || fresh();
    showAll();
  });

  /* ---- keys stay in the worksheet ------------------------------------------------------- */

  function typesText(el) {
    if (el.tagName === "TEXTAREA" || el.isContentEditable) return true;
    return el.tagName === "INPUT" && ["radio", "checkbox", "button", "file", "reset", "submit"].indexOf(el.type) === -1;
  }

  root.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || !event.key || event.key.length !== 1) return;
    // the theme's shortcuts (p, n: previous/next page; s, f, /: search) listen on window: stop here
    event.stopPropagation();
    if (typesText(event.target) || event.target.tagName === "SELECT") return;
    var tr = event.target.closest("tr[data-id]");
    var status = STATUS_KEYS[event.key.toLowerCase()];
    if (!tr || !table.contains(tr) || status === undefined) return;
    event.preventDefault();
    var id = tr.getAttribute("data-id");
    setStatus(id, status);
    var chosen = tr.querySelector('input[type=radio][value="' + status + '"]');
    if (chosen) chosen.focus();
  });

  /* ---- exports: the CLI's formats, every row ------------------------------------------- */

  function pad(n) { return (n < 10 ? "0" : "") + n; }

  function today() {
    var d = new Date();
    return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate());
  }

  function noFilters() {
    var chosen = {};
    fmt.filter_keys.forEach(function (k) { chosen[k] = []; });
    return chosen;
  }

  function filtersInView() {
    var chosen = noFilters();
    fmt.filter_keys.forEach(function (k) {
      var v = inView[k];
      if (v) chosen[k] = Array.isArray(v) ? v.slice() : [v];
    });
    return chosen;
  }

  function filtersText(chosen) {
    var parts = fmt.filter_keys.filter(function (k) { return chosen[k].length; }).map(function (k) {
      return k + "=" + chosen[k].join(",");
    });
    return parts.join("; ") || "none";
  }

  function makeStamp(version, commit, who, filters) {
    var st = { doctrine_version: version, commit: commit, date: today(), filters: filters };
    fmt.review_fields.forEach(function (name) { st[name] = who[name] || ""; });
    return st;
  }

  function stamp() { return makeStamp(data.doctrine_version, data.commit, review(), filtersInView()); }

  function stampCell(st, name) {
    return name === "filters" ? filtersText(st.filters) : String(st[name] === undefined ? "" : st[name]);
  }

  function item(row, a) {
    var out = {};
    fmt.columns.forEach(function (c) {
      out[c] = ANSWER_FIELDS.indexOf(c) !== -1 ? a[c] : String(row[c] === undefined ? "" : row[c]);
    });
    return out;
  }

  function items() { return data.rows.map(function (row) { return item(row, answer(row.id)); }); }

  function csvCell(value) {
    return /[",\n]/.test(value) ? '"' + value.replace(/"/g, '""') + '"' : value;
  }

  function toCsv(rows, st) {
    var header = fmt.columns.concat(fmt.stamp_columns);
    var lines = [header.join(",")];
    rows.forEach(function (it) {
      var cells = fmt.columns.map(function (c) { return it[c]; });
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
      "- Filters: " + filtersText(st.filters)
    ];
    fmt.review_fields.forEach(function (name) { lines.push(("- " + fmt.review_labels[name] + ": " + st[name]).replace(/\s+$/, "")); });
    lines = lines.concat([
      "",
      "Status is one of " + fmt.statuses.join(", ") + ". Put what you observed in evidence.",
      "",
      "| " + fmt.columns.join(" | ") + " |",
      "|" + fmt.columns.map(function () { return "---|"; }).join("")
    ]);
    rows.forEach(function (it) {
      lines.push("| " + fmt.columns.map(function (c) { return mdCell(it[c]); }).join(" | ") + " |");
    });
    return lines.join("\n") + "\n";
  }

  function toJson(rows, st) {
    var doc = {
      format: fmt.json_format,
      format_version: fmt.json_format_version,
      doctrine_version: st.doctrine_version,
      commit: st.commit,
      date: st.date
    };
    fmt.review_fields.forEach(function (name) { doc[name] = st[name]; });
    doc.filters = st.filters;
    doc.statuses = fmt.statuses;
    doc.items = rows;
    return JSON.stringify(doc, null, 2) + "\n";
  }

  var EXPORTS = {
    csv: { make: toCsv, type: "text/csv" },
    md: { make: toMarkdown, type: "text/markdown" },
    json: { make: toJson, type: "application/json" }
  };

  function slug(text) {
    return text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
      .replace(/[^a-z0-9.]+/g, "-").slice(0, 60).replace(/^[-.]+|[-.]+$/g, "");
  }

  function fileName(st, kind) {
    var server = slug([st.server_name, st.server_version].filter(Boolean).join(" "));
    return "mcp-worksheet-" + (server || st.doctrine_version) + "-" + st.date + "." + kind;
  }

  function download(text, name, kind) {
    var url = URL.createObjectURL(new Blob([text], { type: EXPORTS[kind].type + ";charset=utf-8" }));
    var link = document.createElement("a");
    link.href = url;
    link.download = name;
    document.body.appendChild(link);
    link.click();
    link.remove();
    window.setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
  }

  function exportAs(kind) {
    var st = stamp();
    var rows = items();
    var name = fileName(st, kind);
    download(EXPORTS[kind].make(rows, st), name, kind);
    state.exported = { file: name, rows: copyRows(state.rows) };
    save();
    var hidden = rows.length - visibleIds().length;
    var text = "Exported all " + rows.length + " rules (" + answered(state.rows).length + " answered) to " + name + ".";
    if (hidden) text += " The filters hide " + hidden + " of them here; the file holds every row.";
    say([text], false);
  }

  /* ---- clear, and undo ------------------------------------------------------------------ */

  function notExported() {
    var last = state.exported ? state.exported.rows : null;
    return answered(state.rows).filter(function (id) {
      return !last || JSON.stringify(answerIn(state.rows, id)) !== JSON.stringify(answerIn(last, id));
    });
  }

  function clearAnswers() {
    var ids = answered(state.rows);
    if (!ids.length) {
      say(["There are no answers to clear."], false);
      return;
    }
    var missing = notExported().length;
    var risk = !state.exported ? " You have not exported this review."
      : missing ? " " + missing + " of them " + (missing === 1 ? "is" : "are") + " not in your last export (" + state.exported.file + ")."
      : " All of them are in your last export (" + state.exported.file + ").";
    if (!window.confirm("Clear all " + counted(ids.length, "answer") + " for doctrine " + data.doctrine_version + " in this browser?" + risk)) return;
    var previous = copyRows(state.rows);
    state.rows = {};
    save();
    showAll();
    refilter();
    var lost = !state.exported ? "none of them were exported"
      : missing ? missing + " of them " + (missing === 1 ? "was" : "were") + " not in your last export" : "all of them are in your last export";
    say(["Cleared " + counted(ids.length, "answer") + "; " + lost + "."], false, {
      name: "undo", label: "Undo", run: function () { undoClear(previous); }
    });
  }

  function undoClear(previous) {
    var kept = 0;
    Object.keys(previous).forEach(function (id) {
      if (!state.rows[id]) state.rows[id] = previous[id];
      else kept += 1;  // answered again since the clear: the newer answer stays
    });
    save();
    showAll();
    refilter();
    var text = "Restored " + counted(Object.keys(previous).length - kept, "answer") + ".";
    if (kept) text += " " + counted(kept, "rule") + " you answered since the clear keep the new answer.";
    say([text], false);
  }

  /* ---- earlier doctrine versions -------------------------------------------------------- */

  var retiredById = {};
  data.retired.forEach(function (r) { retiredById[r.id] = r; });

  function retiredText(id) {
    var r = retiredById[id];
    var parts = ["retired in " + (r.retired_in || "?")];
    if (r.replaced_by.length) parts.push("replaced by " + r.replaced_by.join(", "));
    else if (r.reason) parts.push(r.reason);
    return id + " (" + parts.join(", ") + ")";
  }

  /* What changed since ``version`` for the rules ``ids`` (answers made for that version). */
  function sinceVersion(version, ids) {
    var history = data.earlier[version];
    var here = ids.filter(function (id) { return byId[id]; });
    var out = {
      known: !!history,
      current: here,
      changed: history ? here.filter(function (id) { return history.changed.indexOf(id) !== -1; }) : [],
      retired: ids.filter(function (id) { return !byId[id] && retiredById[id]; }),
      gone: ids.filter(function (id) { return !byId[id] && !retiredById[id]; })
    };
    return out;
  }

  function sinceLines(version, since, verb) {
    var lines = [];
    if (!since.known) {
      lines.push("This build cannot tell which rules changed since doctrine " + version + " (that version is not in the history it was built from): look at every " + verb + " answer again.");
    } else if (since.changed.length) {
      lines.push("Changed since " + version + ", so look at them again (" + since.changed.length + "): " + since.changed.join(", ") + ".");
    } else if (since.current.length) {
      lines.push("None of these rules changed since " + version + ".");
    }
    if (since.retired.length) {
      lines.push("Retired since, so not " + verb + " (" + since.retired.length + "): " + since.retired.map(retiredText).join("; ") + ".");
    }
    if (since.gone.length) {
      lines.push("Not in doctrine " + data.doctrine_version + ", so not " + verb + " (" + since.gone.length + "): " + since.gone.join(", ") + ".");
    }
    return lines;
  }

  function earlierReviews() {
    var found = [];
    try {
      for (var i = 0; i < window.localStorage.length; i += 1) {
        var key = window.localStorage.key(i);
        if (!key || key.indexOf(data.storage_prefix) !== 0 || key === data.storage_key) continue;
        var version = key.slice(data.storage_prefix.length);
        var saved = /^\d+\.\d+\.\d+$/.test(version) ? readState(key) : null;
        var carried = saved && Array.isArray(saved.carried_into) && saved.carried_into.indexOf(data.doctrine_version) !== -1;
        if (saved && !carried && answered(saved.rows).length) found.push({ version: version, key: key, state: saved });
      }
    } catch (err) { /* storage unavailable: nothing to offer */ }
    return found.sort(function (a, b) { return a.version < b.version ? 1 : -1; });
  }

  function button(label, name, run) {
    var b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.setAttribute("data-hb-earlier", name);
    b.addEventListener("click", run);
    return b;
  }

  var dismissed = {};

  function alreadyAnswered(ids) {
    var here = answered(state.rows);
    return ids.filter(function (id) { return here.indexOf(id) !== -1; });
  }

  function offerEarlier() {
    earlierBox.textContent = "";
    var reviews = earlierReviews().filter(function (old) { return !dismissed[old.version]; });
    earlierBox.hidden = !reviews.length;
    reviews.forEach(function (old) {
      var ids = answered(old.state.rows);
      var since = sinceVersion(old.version, ids);
      var taken = alreadyAnswered(since.current);
      var box = document.createElement("div");
      box.className = "hb-ws-earlier-one";
      box.setAttribute("data-version", old.version);
      var head = document.createElement("p");
      head.textContent = "This browser holds " + counted(ids.length, "answer") + " for doctrine " + old.version +
        ", an earlier version of this handbook. The table shows doctrine " + data.doctrine_version + ", without them.";
      var list = document.createElement("ul");
      var lines = sinceLines(old.version, since, "carried over");
      if (taken.length) lines.push("Already answered here, so your answer here stays (" + taken.length + "): " + taken.join(", ") + ".");
      lines.forEach(function (line) {
        var li = document.createElement("li");
        li.textContent = line;
        list.appendChild(li);
      });
      var actions = document.createElement("p");
      var movable = since.current.length - taken.length;
      var carry = button("Carry over " + counted(movable, "answer"), "carry", function () { carryOver(old, since); });
      carry.disabled = movable === 0;
      actions.appendChild(carry);
      actions.appendChild(button("Export them first (JSON)", "export", function () { exportEarlier(old); }));
      actions.appendChild(button("Not now", "dismiss", function () {
        dismissed[old.version] = true;
        offerEarlier();
      }));
      box.appendChild(head);
      box.appendChild(list);
      box.appendChild(actions);
      earlierBox.appendChild(box);
    });
  }

  function carryOver(old, since) {
    var taken = alreadyAnswered(since.current);  // now, not when the offer was drawn: an answer given since stays
    var moved = since.current.filter(function (id) { return taken.indexOf(id) === -1; });
    moved.forEach(function (id) { state.rows[id] = answerIn(old.state.rows, id); });
    fmt.review_fields.forEach(function (name) {
      if (!oneLine(state.review[name]) && oneLine(old.state.review[name])) state.review[name] = old.state.review[name];
    });
    if (!save()) return;
    old.state.carried_into = (Array.isArray(old.state.carried_into) ? old.state.carried_into : []).concat([data.doctrine_version]);
    writeState(old.key, old.state);  // kept, marked: the offer does not come back, and nothing is deleted
    showAll();
    refilter();
    offerEarlier();
    var lines = ["Carried over " + counted(moved.length, "answer") + " from doctrine " + old.version + ". They stay stored for " + old.version + " too."];
    var changed = since.changed.filter(function (id) { return moved.indexOf(id) !== -1; });
    if (changed.length) lines.push("Changed since " + old.version + ", so look at them again (" + changed.length + "): " + changed.join(", ") + ".");
    if (taken.length) lines.push("Already answered here, so your answer here stayed (" + taken.length + "): " + taken.join(", ") + ".");
    if (!since.known) lines.push("This build cannot tell which rules changed since " + old.version + ": look at every carried answer again.");
    say(lines, false);
  }

  function exportEarlier(old) {
    var ids = answered(old.state.rows);
    var rows = ids.map(function (id) {
      var meta = byId[id] || { id: id, title: retiredById[id] ? retiredById[id].title : "" };
      return item(meta, answerIn(old.state.rows, id));
    });
    var who = {};
    fmt.review_fields.forEach(function (name) { who[name] = oneLine(old.state.review && old.state.review[name]); });
    var st = makeStamp(old.version, "unknown", who, noFilters());
    var name = fileName(st, "json").replace(/\.json$/, "-doctrine-" + old.version + ".json");
    download(toJson(rows, st), name, "json");
    say(["Exported " + counted(ids.length, "answer") + " for doctrine " + old.version + " to " + name + ". They stay stored in this browser."], false);
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
    fmt.review_fields.forEach(function (name) {
      if (doc[name] !== undefined && doc[name] !== null && typeof doc[name] !== "string") {
        errors.push(file + ", field " + name + ": must be text, not " + JSON.stringify(doc[name]));
      }
    });
    doc.items.forEach(function (it, i) {
      var where = file + ": row " + (i + 1);
      if (!it || typeof it !== "object" || Array.isArray(it)) {
        errors.push(where + ": not an object with id, status, evidence and notes");
        return;
      }
      if (typeof it.id !== "string" || !it.id) {
        errors.push(where + ", column id: missing or not text");
        return;
      }
      where += " (" + it.id + ")";
      var values = {};
      ANSWER_FIELDS.forEach(function (f) {
        var v = it[f] === undefined || it[f] === null ? "" : it[f];
        if (typeof v !== "string") errors.push(where + ", column " + f + ": must be text, not " + JSON.stringify(v));
        else values[f] = v;
      });
      if (typeof values.status === "string") {
        values.status = canonicalStatus(values.status);
        if (values.status === null) {
          errors.push(where + ", column status: " + JSON.stringify(it.status) + " is not one of " + fmt.statuses.join(", ") + " or empty");
        }
      }
      if (updates[it.id]) errors.push(where + ", column id: the id appears twice");
      if (!byId[it.id]) unknown.push(it.id);
      else updates[it.id] = values;
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
    fmt.review_fields.forEach(function (name) { if (oneLine(doc[name])) state.review[name] = oneLine(doc[name]); });
    save();
    showAll();
    refilter();
    var lines = ["Imported " + Object.keys(read.updates).length + " rows from " + file + "."];
    if (doc.doctrine_version !== data.doctrine_version) {
      var version = String(doc.doctrine_version);
      var judged = Object.keys(read.updates).filter(function (id) { return read.updates[id].status || read.updates[id].evidence || read.updates[id].notes; });
      lines[0] += " It was exported from doctrine " + version + "; this page is doctrine " + data.doctrine_version + ".";
      lines = lines.concat(sinceLines(version, sinceVersion(version, judged.concat(read.unknown)), "imported"));
    } else if (read.unknown.length) {
      lines.push("Skipped ids that are not in this doctrine: " + read.unknown.join(", ") + ".");
    }
    say(lines, false);
  }

  /* ---- print ---------------------------------------------------------------------------- */

  function showPrintHead() {
    var who = review();
    var server = who.server_name || (who.server_version ? "an unnamed server" : "");
    if (server && who.server_version) server += ", version " + who.server_version;
    var parts = [server ? "Review of " + server : "Review (no server named)"];
    if (who.reviewer) parts.push("reviewer " + who.reviewer);
    parts.push(today());
    parts.push("doctrine " + data.doctrine_version + ", commit " + data.commit);
    var filters = filtersText(filtersInView());
    if (filters !== "none") parts.push("filters in view: " + filters);
    root.querySelector(".hb-print-head").textContent = parts.join(" · ");
  }

  /* ---- wiring --------------------------------------------------------------------------- */

  root.querySelectorAll("[data-hb-export]").forEach(function (b) {
    b.addEventListener("click", function () { exportAs(b.getAttribute("data-hb-export")); });
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
  root.querySelector("[data-hb-clear]").addEventListener("click", clearAnswers);
  form.addEventListener("hb-filtered", function (event) {
    inView = event.detail.filters;
    showProgress();
    showPrintHead();
  });
  window.addEventListener("beforeprint", showPrintHead);
  window.addEventListener("pageshow", function (event) {
    if (!event.persisted) return;  // back from the back/forward cache: another tab may have changed the review
    state = readState(data.storage_key) || fresh();
    showAll();
    refilter();
    offerEarlier();
  });

  root.querySelector(".hb-ws-actions").hidden = false;
  root.querySelector(".hb-ws-review").hidden = false;
  root.querySelector(".hb-ws-keys").hidden = false;
  root.querySelector(".hb-print-stamp").textContent =
    "Doctrine " + data.doctrine_version + " · commit " + data.commit + " · printed " + today();
  showAll();
  refilter();
  offerEarlier();
})();
